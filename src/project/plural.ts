/**
 * Resource plurals, as controller-gen derives them: `strings.ToLower(flect.Pluralize(Kind))`,
 * with github.com/gobuffalo/flect v1.0.3 (the version Kubebuilder v4 pins; controller-gen's own
 * testdata expects its answers, e.g. Zoo -> zoos where older flect said zooes). The word lists
 * below are flect's data, in flect's order (the order is the rule priority); the procedure is
 * ours, written to give the same answers:
 *
 * 1. Split the word into parts the way flect does (spaces, `_ : - /`, a capital after a
 *    non-capital, a capital after a known acronym) and look at the last part only, so that
 *    `TestQuota` is decided by `Quota`.
 * 2. The whole input known as a singular gets its plural; known as a plural, it stays.
 * 3. The last part, lower-cased, known as a plural stays; known as a singular it is replaced by
 *    its plural (capitalised when the part was).
 * 4. Otherwise the first suffix rule that matches the last part (case-sensitive) decides. Each
 *    rule comes as a pair: a word already ending in the plural suffix stays, one ending in the
 *    singular suffix has it replaced. Dictionary words that are not `exact` act as suffix rules
 *    too (so `salesperson` -> `salespeople`), ahead of the plain suffix list and last-listed
 *    first, as flect builds its table by prepending.
 * 5. Otherwise a word ending in "s" stays, and any other gets "s".
 *
 * flect v0.2.5 dropped the old `oot` -> `eet` rule whose reverse made every `*eet` word look
 * plural (fleet stayed fleet); v0.3/v1 replaced the rest of the old tables with these.
 */

interface Word {
  singular: string;
  plural?: string;
  /** Another accepted plural (only ever recognised as a plural). */
  alternative?: string;
  /** The plural does not map back to this singular. */
  unidirectional?: boolean;
  /** Same word in both numbers. */
  uncountable?: boolean;
  /** Only the whole word, never as the end of a longer one. */
  exact?: boolean;
}

const w = (singular: string, plural: string, more: Omit<Word, 'singular' | 'plural'> = {}): Word => ({
  singular,
  plural,
  ...more,
});
const alt = (singular: string, plural: string, alternative: string): Word => ({ singular, plural, alternative });
const exact = (singular: string, plural: string): Word => ({ singular, plural, exact: true });
const uncountable = (singular: string): Word => ({ singular, uncountable: true });

/** flect's dictionary (plural_rules.go `dictionary`), in its order. */
const DICTIONARY: readonly Word[] = [
  // same in both numbers
  w('aircraft', 'aircraft'),
  alt('beef', 'beef', 'beefs'),
  w('bison', 'bison'),
  w('blues', 'blues', { unidirectional: true }),
  w('chassis', 'chassis'),
  w('deer', 'deer'),
  alt('fish', 'fish', 'fishes'),
  w('moose', 'moose'),
  w('police', 'police'),
  alt('salmon', 'salmon', 'salmons'),
  w('series', 'series'),
  w('sheep', 'sheep'),
  alt('shrimp', 'shrimp', 'shrimps'),
  w('species', 'species'),
  alt('swine', 'swine', 'swines'),
  alt('trout', 'trout', 'trouts'),
  alt('tuna', 'tuna', 'tunas'),
  w('you', 'you'),
  // -en
  w('child', 'children'),
  exact('ox', 'oxen'),
  // vowel change
  w('foot', 'feet'),
  w('goose', 'geese'),
  w('man', 'men'),
  w('human', 'humans'),
  exact('louse', 'lice'),
  w('mouse', 'mice'),
  w('tooth', 'teeth'),
  w('woman', 'women'),
  // other irregulars
  exact('die', 'dice'),
  w('person', 'people'),
  // French -u
  alt('adieu', 'adieux', 'adieus'),
  w('fabliau', 'fabliaux'),
  alt('bureau', 'bureaus', 'bureaux'),
  // Greek -on
  w('criterion', 'criteria'),
  alt('ganglion', 'ganglia', 'ganglions'),
  alt('lexicon', 'lexica', 'lexicons'),
  alt('mitochondrion', 'mitochondria', 'mitochondrions'),
  w('noumenon', 'noumena'),
  w('phenomenon', 'phenomena'),
  w('taxon', 'taxa'),
  // Latin -um
  w('media', 'media'),
  w('medium', 'media', { alternative: 'mediums', unidirectional: true }),
  alt('stadium', 'stadiums', 'stadia'),
  alt('aquarium', 'aquaria', 'aquariums'),
  alt('auditorium', 'auditoria', 'auditoriums'),
  alt('symposium', 'symposia', 'symposiums'),
  alt('curriculum', 'curriculums', 'curricula'),
  w('quota', 'quotas'),
  // Latin -us
  alt('alumnus', 'alumni', 'alumnuses'),
  w('bacillus', 'bacilli'),
  alt('cactus', 'cacti', 'cactuses'),
  w('coccus', 'cocci'),
  alt('focus', 'foci', 'focuses'),
  alt('locus', 'loci', 'locuses'),
  alt('nucleus', 'nuclei', 'nucleuses'),
  alt('octopus', 'octupuses', 'octopi'),
  alt('radius', 'radii', 'radiuses'),
  w('syllabus', 'syllabi'),
  alt('corpus', 'corpora', 'corpuses'),
  w('genus', 'genera'),
  // Latin -a
  w('alumna', 'alumnae'),
  w('vertebra', 'vertebrae'),
  w('differentia', 'differentiae'),
  w('minutia', 'minutiae'),
  w('vita', 'vitae'),
  w('larva', 'larvae'),
  w('postcava', 'postcavae'),
  w('praecava', 'praecavae'),
  w('uva', 'uvae'),
  // Latin -ex
  alt('apex', 'apices', 'apexes'),
  alt('codex', 'codices', 'codexes'),
  alt('index', 'indices', 'indexes'),
  alt('latex', 'latices', 'latexes'),
  alt('vertex', 'vertices', 'vertexes'),
  alt('vortex', 'vortices', 'vortexes'),
  // Latin -ix
  alt('appendix', 'appendices', 'appendixes'),
  alt('radix', 'radices', 'radixes'),
  alt('helix', 'helices', 'helixes'),
  // Latin -is
  exact('axis', 'axes'),
  w('crisis', 'crises'),
  w('ellipsis', 'ellipses', { unidirectional: true }),
  w('genesis', 'geneses'),
  w('oasis', 'oases'),
  w('thesis', 'theses'),
  w('testis', 'testes'),
  w('base', 'bases'),
  w('basis', 'bases', { unidirectional: true }),
  exact('alias', 'aliases'),
  w('vedalia', 'vedalias'),
  // -ch -o -s -sh -x -z words the suffix rules would get wrong
  exact('use', 'uses'),
  w('abuse', 'abuses'),
  w('cause', 'causes'),
  w('clause', 'clauses'),
  w('cruse', 'cruses'),
  w('excuse', 'excuses'),
  w('fuse', 'fuses'),
  w('house', 'houses'),
  w('misuse', 'misuses'),
  w('muse', 'muses'),
  w('pause', 'pauses'),
  w('ache', 'aches'),
  w('topaz', 'topazes'),
  alt('buffalo', 'buffaloes', 'buffalos'),
  w('potato', 'potatoes'),
  w('tomato', 'tomatoes'),
  // uncountable
  uncountable('equipment'),
  uncountable('information'),
  uncountable('jeans'),
  uncountable('money'),
  uncountable('news'),
  uncountable('rice'),
  // -f words that keep -fs, or -ve words that are no -f plural
  alt('dwarf', 'dwarfs', 'dwarves'),
  alt('hoof', 'hoofs', 'hooves'),
  w('thief', 'thieves'),
  w('chive', 'chives'),
  w('hive', 'hives'),
  w('move', 'moves'),
  // -ie words that are no -y plural
  w('movie', 'movies'),
  w('cookie', 'cookies'),
  // -um words that keep -ums, and an -a that is no -um plural
  w('pretorium', 'pretoriums'),
  w('agenda', 'agendas'),
  alt('formula', 'formulas', 'formulae'),
  // -oe words, and a word that is its own plural
  w('shoe', 'shoes'),
  exact('toe', 'toes'),
  w('graffiti', 'graffiti'),
  // abbreviations
  exact('ID', 'IDs'),
];

/**
 * flect's suffix rules (plural_rules.go `singularToPluralSuffixList`): [singular ending, plural
 * ending], first match wins. Some entries are odd (`dula` -> `bulae`); they are flect's, kept.
 */
const SUFFIXES: readonly (readonly [string, string])[] = [
  // -f / -fe -> -ves
  ['tive', 'tives'],
  ['eaf', 'eaves'],
  ['oaf', 'oaves'],
  ['afe', 'aves'],
  ['arf', 'arves'],
  ['rfe', 'rves'],
  ['rf', 'rves'],
  ['lf', 'lves'],
  ['fe', 'ves'],
  // consonant + y -> -ies
  ['ay', 'ays'],
  ['ey', 'eys'],
  ['oy', 'oys'],
  ['quy', 'quies'],
  ['uy', 'uys'],
  ['y', 'ies'],
  // French -eau
  ['eau', 'eaux'],
  // Latin -a -> -ae
  ['bula', 'bulae'],
  ['dula', 'bulae'],
  ['lula', 'bulae'],
  ['nula', 'bulae'],
  ['vula', 'bulae'],
  // Greek -on -> -a
  ['hedron', 'hedra'],
  // Latin -um -> -a
  ['ium', 'ia'],
  ['seum', 'seums'],
  ['eum', 'ea'],
  ['oum', 'oa'],
  ['stracum', 'straca'],
  ['dum', 'da'],
  ['elum', 'ela'],
  ['ilum', 'ila'],
  ['olum', 'ola'],
  ['ulum', 'ula'],
  ['llum', 'lla'],
  ['ylum', 'yla'],
  ['imum', 'ima'],
  ['ernum', 'erna'],
  ['gnum', 'gna'],
  ['brum', 'bra'],
  ['crum', 'cra'],
  ['terum', 'tera'],
  ['serum', 'sera'],
  ['trum', 'tra'],
  ['antum', 'anta'],
  ['atum', 'ata'],
  ['entum', 'enta'],
  ['etum', 'eta'],
  ['itum', 'ita'],
  ['otum', 'ota'],
  ['utum', 'uta'],
  ['ctum', 'cta'],
  ['ovum', 'ova'],
  // Latin -ix -> -ices
  ['trix', 'trices'],
  // Latin -is -> -es
  ['iasis', 'iases'],
  ['mesis', 'meses'],
  ['kinesis', 'kineses'],
  ['resis', 'reses'],
  ['gnosis', 'gnoses'],
  ['opsis', 'opses'],
  ['ysis', 'yses'],
  // -ch -o -s -sh -x -z
  ['ouse', 'ouses'],
  ['lause', 'lauses'],
  ['us', 'uses'],
  ['ch', 'ches'],
  ['io', 'ios'],
  ['sh', 'shes'],
  ['ss', 'sses'],
  ['ez', 'ezzes'],
  ['iz', 'izzes'],
  ['tz', 'tzes'],
  ['zz', 'zzes'],
  ['ano', 'anos'],
  ['lo', 'los'],
  ['to', 'tos'],
  ['oo', 'oos'],
  ['o', 'oes'],
  ['x', 'xes'],
  // abbreviations ending in a capital S
  ['S', 'Ses'],
];

/**
 * flect's acronyms (acronyms.go `baseAcronyms`). They are looked up upper-cased, so the
 * mixed-case entries never match; they are listed because flect lists them.
 */
const ACRONYMS: ReadonlySet<string> = new Set(
  (
    'OK UTF8 HTML JSON JWT ID UUID SQL ACK ACL ADSL AES ANSI API ARP ATM BGP BSS CCITT CHAP CIDR CIR CLI CPE CPU CRC CRT CSMA ' +
    'CMOS DCE DEC DES DHCP DNS DRAM DSL DSLAM DTE DMI EHA EIA EIGRP EOF ESS FCC FCS FDDI FTP GBIC gbps GEPOF HDLC HTTP HTTPS ' +
    'IANA ICMP IDF IDS IEEE IETF IMAP IP IPS ISDN ISP kbps LACP LAN LAPB LAPF LLC MAC Mbps MC MDF MIB MoCA MPLS MTU NAC NAT ' +
    'NBMA NIC NRZ NRZI NVRAM OSI OSPF OUI PAP PAT PC PIM PCM PDU POP3 POTS PPP PPTP PTT PVST RAM RARP RFC RIP RLL ROM RSTP ' +
    'RTP RCP SDLC SFD SFP SLARP SLIP SMTP SNA SNAP SNMP SOF SRAM SSH SSID STP SYN TDM TFTP TIA TOFU UDP URL URI USB UTP VC ' +
    'VLAN VLSM VPN W3C WAN WEP WiFi WPA WWW'
  ).split(' '),
);

/** A suffix rule: words ending in `suffix` become `stem + replacement`; null keeps the word. */
interface Rule {
  suffix: string;
  replacement: string | null;
}

const singularToPlural = new Map<string, string>();
const pluralToSingular = new Map<string, string>();
const rules: Rule[] = [];

function buildTables(): void {
  const pluralOf = (wd: Word) => wd.plural ?? (wd.uncountable ? wd.singular : undefined);
  for (const wd of DICTIONARY) {
    const plural = pluralOf(wd);
    if (plural === undefined || singularToPlural.has(wd.singular))
      throw new Error(`plural table: bad entry ${wd.singular}`);
    singularToPlural.set(wd.singular, plural);
    if (wd.unidirectional) continue;
    for (const p of wd.alternative ? [plural, wd.alternative] : [plural]) {
      if (pluralToSingular.has(p)) throw new Error(`plural table: ${p} listed twice`);
      pluralToSingular.set(p, wd.singular);
    }
  }
  // Priority: non-exact dictionary words, last listed first; then the suffix list in order.
  // Within each pair the "already plural" check comes first.
  const pair = (singular: string, plural: string): Rule[] => [
    { suffix: plural, replacement: null },
    { suffix: singular, replacement: plural },
  ];
  const words = DICTIONARY.filter((wd) => !wd.exact).reverse();
  for (const wd of words) {
    const plural = pluralOf(wd); // every word has one: checked above
    if (plural !== undefined) rules.push(...pair(wd.singular, plural));
  }
  for (const [singular, plural] of SUFFIXES) rules.push(...pair(singular, plural));
}
buildTables();

const SEPARATORS = ['_', ' ', ':', '-', '/'];
const isWhite = (c: string) => /^\p{White_Space}$/u.test(c);
const isSeparator = (c: string) => SEPARATORS.includes(c) || isWhite(c);
const isUpper = (c: string) => /^\p{Lu}$/u.test(c);
const isWordChar = (c: string) => /^[\p{L}\p{Nd}\p{P}`]$/u.test(c);
const isLoneSurrogate = (c: string) => c.length === 1 && c.charCodeAt(0) >= 0xd800 && c.charCodeAt(0) <= 0xdfff;

function trimWhite(s: string): string {
  const cs = [...s];
  let a = 0;
  let b = cs.length;
  while (a < b && isWhite(cs[a])) a++;
  while (b > a && isWhite(cs[b - 1])) b--;
  return cs.slice(a, b).join('');
}

function trimChar(s: string, ch: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && s[a] === ch) a++;
  while (b > a && s[b - 1] === ch) b--;
  return s.slice(a, b);
}

/** A finished part: trimmed of separators, an acronym upper-cased, empty ones dropped. */
function addPart(parts: string[], raw: string): void {
  let s = trimWhite(raw);
  for (const sep of SEPARATORS) s = trimChar(s, sep);
  if (ACRONYMS.has(s.toUpperCase())) s = s.toUpperCase();
  if (s !== '') parts.push(s);
}

/** The words of an identifier, as flect splits them (`TestQuota` -> Test, Quota; `DNSRecord` -> DNS, Record). */
export function wordsOf(input: string): string[] {
  const s = trimWhite(input);
  if (s === '') return [];
  if (ACRONYMS.has(s.toUpperCase())) return [s.toUpperCase()];
  const parts: string[] = [];
  let current = '';
  let prev = '';
  for (const c of s) {
    if (isLoneSurrogate(c)) continue;
    const startsPart = isSeparator(c) || (isUpper(c) && (!isUpper(prev) || ACRONYMS.has(current.toUpperCase())));
    if (startsPart) {
      addPart(parts, current);
      current = c;
    } else if (isWordChar(c)) {
      current += c;
    } else {
      addPart(parts, current);
      current = '';
    }
    prev = c;
  }
  addPart(parts, current);
  return parts;
}

/** First character upper-cased (flect's Capitalize of one part). */
function capitalised(s: string): string {
  const [first = '', ...rest] = [...s];
  return first.toUpperCase() + rest.join('');
}

/** `original` with `tail` cut off its end (when it ends so) and `replacement` put there. */
function replaceEnd(original: string, tail: string, replacement: string): string {
  return (original.endsWith(tail) ? original.slice(0, original.length - tail.length) : original) + replacement;
}

/**
 * flect.Pluralize, letter case kept: `TestQuota` -> `TestQuotas`, `SmartPerson` -> `SmartPeople`,
 * `fleet` -> `fleets`. Use `pluralize` for a resource name.
 */
export function flectPluralize(input: string): string {
  const parts = wordsOf(input);
  const last = parts[parts.length - 1];
  if (last === undefined) return '';
  const whole = singularToPlural.get(input);
  if (whole !== undefined) return replaceEnd(input, input, whole);
  if (pluralToSingular.has(input)) return input;
  const lower = last.toLowerCase();
  if (pluralToSingular.has(lower)) return input;
  const known = singularToPlural.get(lower);
  if (known !== undefined) return replaceEnd(input, last, last === capitalised(last) ? capitalised(known) : known);
  for (const rule of rules) {
    if (!last.endsWith(rule.suffix)) continue;
    const plural =
      rule.replacement === null ? last : last.slice(0, last.length - rule.suffix.length) + rule.replacement;
    return replaceEnd(input, last, plural);
  }
  return lower.endsWith('s') ? input : `${input}s`;
}

/**
 * The default resource name of a Kind, lower case: controller-gen's
 * `strings.ToLower(flect.Pluralize(Kind))` (`CronJob` -> `cronjobs`, `Fleet` -> `fleets`). Pass
 * the Kind as written: its last camel-case word decides (`WildOx` -> `wildoxen`).
 */
export function pluralize(kind: string): string {
  return flectPluralize(kind).toLowerCase();
}
