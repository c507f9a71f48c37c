// Resource plurals: flect v1.0.3's Pluralize (what controller-gen calls) and the lower-cased
// resource name built on it. The first table is flect's own assertion table (flect_test.go
// singlePluralAssertions, with the rows its init() adds from the dictionary), kept as data.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pluralize as fromCrd } from '../../src/manifests/crd.js';
import { pluralize as fromProject, resourceOf } from '../../src/project/index.js';
import { flectPluralize, pluralize, wordsOf } from '../../src/project/plural.js';

/** [singular, plural, flect checks Pluralize on this row]. */
type Row = readonly [string, string, boolean];

// flect_test.go singlePluralAssertions: {singular, plural, doSingularizeTest, doPluralizeTest}; only the
// pluralize flag matters here.
const FLECT_ASSERTIONS: readonly Row[] = [
  ['', '', true],
  ['Car', 'Cars', true],
  ['Boy', 'Boys', true],
  ['GoodBoy', 'GoodBoys', true],
  ['Axis', 'Axes', true],
  ['Child', 'Children', true],
  ['GoodChild', 'GoodChildren', true],
  ['node_child', 'node_children', true],
  ['SmartPerson', 'SmartPeople', true],
  ['great_person', 'great_people', true],
  ['salesperson', 'salespeople', true],
  ['custom_field', 'custom_fields', true],
  ['funky jeans', 'funky jeans', true],
  ['payment_information', 'payment_information', true],
  ['sportsEquipment', 'sportsEquipment', true],
  ['status_code', 'status_codes', true],
  ['user_custom_field', 'user_custom_fields', true],
  ['SuperbOx', 'SuperbOxen', true],
  ['WildOx', 'WildOxen', true],
  ['wild_ox', 'wild_oxen', true],
  ['box', 'boxes', true],
  ['fox', 'foxes', true],
  ['comment', 'comments', true],
  ['edge', 'edges', true],
  ['equipment', 'equipment', true],
  ['experience', 'experiences', true],
  ['fleet', 'fleets', true],
  ['foobar', 'foobars', true],
  ['mouse', 'mice', true],
  ['newsletter', 'newsletters', true],
  ['stack', 'stacks', true],
  ['user', 'users', true],
  ['woman', 'women', true],
  ['human', 'humans', true],
  ['spokesman', 'spokesmen', true],
  // -f / -fe -> -ves
  ['calf', 'calves', true],
  ['dwarf', 'dwarves', false],
  ['dwarf', 'dwarfs', true],
  ['elf', 'elves', true],
  ['half', 'halves', true],
  ['knife', 'knives', true],
  ['leaf', 'leaves', true],
  ['life', 'lives', true],
  ['loaf', 'loaves', true],
  ['safe', 'saves', true],
  ['scarf', 'scarves', true],
  ['self', 'selves', true],
  ['sheaf', 'sheaves', true],
  ['shelf', 'shelves', true],
  ['thief', 'thieves', true],
  ['wharf', 'wharves', true],
  ['wife', 'wives', true],
  ['wolf', 'wolves', true],
  ['beef', 'beef', true],
  ['belief', 'beliefs', true],
  ['chef', 'chefs', true],
  ['chief', 'chiefs', true],
  ['hoof', 'hoofs', true],
  ['kerchief', 'kerchiefs', true],
  ['roof', 'roofs', true],
  ['archive', 'archives', true],
  ['perspective', 'perspectives', true],
  // consonant + y -> -ies
  ['day', 'days', true],
  ['hobby', 'hobbies', true],
  ['agency', 'agencies', true],
  ['body', 'bodies', true],
  ['abbey', 'abbeys', true],
  ['jiffy', 'jiffies', true],
  ['geology', 'geologies', true],
  ['geography', 'geographies', true],
  ['cookie', 'cookies', true],
  ['sky', 'skies', true],
  ['supply', 'supplies', true],
  ['academy', 'academies', true],
  ['ebony', 'ebonies', true],
  ['boy', 'boys', true],
  ['copy', 'copies', true],
  ['category', 'categories', true],
  ['embassy', 'embassies', true],
  ['entity', 'entities', true],
  ['guy', 'guys', true],
  ['obsequy', 'obsequies', true],
  ['navy', 'navies', true],
  ['proxy', 'proxies', true],
  ['crazy', 'crazies', true],
  // French -u
  ['aboideau', 'aboideaux', true],
  ['beau', 'beaux', true],
  ['château', 'châteaux', true],
  ['chateau', 'chateaux', true],
  ['fabliau', 'fabliaux', true],
  ['tableau', 'tableaux', true],
  ['bureau', 'bureaus', true],
  ['adieu', 'adieux', true],
  // Greek -on
  ['tetrahedron', 'tetrahedra', true],
  // Latin -um
  ['stadium', 'stadiums', true],
  ['stadium', 'stadia', false],
  ['aquarium', 'aquaria', true],
  ['auditorium', 'auditoria', true],
  ['bacterium', 'bacteria', true],
  ['pretorium', 'pretoriums', true],
  ['symposium', 'symposia', true],
  ['symposium', 'symposiums', false],
  ['amoebaeum', 'amoebaea', true],
  ['coliseum', 'coliseums', true],
  ['museum', 'museums', true],
  ['agenda', 'agendas', true],
  ['curriculum', 'curriculums', true],
  ['collum', 'colla', true],
  ['datum', 'data', true],
  ['erratum', 'errata', true],
  ['maximum', 'maxima', true],
  ['platinum', 'platinums', true],
  ['serum', 'sera', true],
  ['spectrum', 'spectra', true],
  // Latin -us
  ['opera', 'operas', true],
  // Latin -a
  ['alumna', 'alumnae', true],
  ['larva', 'larvae', true],
  ['minutia', 'minutiae', true],
  ['nebula', 'nebulae', true],
  ['vertebra', 'vertebrae', true],
  ['vita', 'vitae', true],
  ['antenna', 'antennas', true],
  ['formula', 'formulas', true],
  ['tuna', 'tuna', true],
  ['quota', 'quotas', true],
  ['vedalia', 'vedalias', true],
  ['media', 'media', true],
  ['multimedia', 'multimedia', true],
  // -ch -o -s -sh -x -z
  ['lunch', 'lunches', true],
  ['search', 'searches', true],
  ['switch', 'switches', true],
  ['headache', 'headaches', true],
  ['marsh', 'marshes', true],
  ['wish', 'wishes', true],
  ['bus', 'buses', true],
  ['campus', 'campuses', true],
  ['caucus', 'caucuses', true],
  ['circus', 'circuses', true],
  ['plus', 'pluses', true],
  ['prometheus', 'prometheuses', true],
  ['status', 'statuses', true],
  ['virus', 'viruses', true],
  ['use', 'uses', true],
  ['fuse', 'fuses', true],
  ['house', 'houses', true],
  ['spouse', 'spouses', true],
  ['quiz', 'quizzes', true],
  ['buzz', 'buzzes', true],
  ['blitz', 'blitzes', true],
  ['quartz', 'quartzes', true],
  ['topaz', 'topazes', true],
  ['waltz', 'waltzes', true],
  ['prize', 'prizes', true],
  ['access', 'accesses', true],
  ['process', 'processes', true],
  ['address', 'addresses', true],
  ['case', 'cases', true],
  ['database', 'databases', true],
  ['glimpse', 'glimpses', true],
  ['horse', 'horses', true],
  ['lapse', 'lapses', true],
  ['collapse', 'collapses', true],
  ['truss', 'trusses', true],
  ['portfolio', 'portfolios', true],
  ['piano', 'pianos', true],
  ['hello', 'hellos', true],
  ['buffalo', 'buffaloes', true],
  ['photo', 'photos', true],
  ['potato', 'potatoes', true],
  ['tomato', 'tomatoes', true],
  ['graffiti', 'graffiti', true],
  ['foo', 'foos', true],
  ['zoo', 'zoos', true],
  // Latin -ex / -ix
  ['appendix', 'appendices', true],
  ['codex', 'codices', true],
  ['index', 'indices', true],
  ['bodice', 'bodices', true],
  ['helix', 'helices', true],
  ['complex', 'complexes', true],
  ['duplex', 'duplexes', true],
  ['accomplice', 'accomplices', true],
  ['slice', 'slices', true],
  ['matrix', 'matrices', true],
  ['justice', 'justices', true],
  ['lattice', 'lattices', true],
  ['notice', 'notices', true],
  ['apex', 'apices', true],
  ['spice', 'spices', true],
  ['device', 'devices', true],
  ['service', 'services', true],
  ['fix', 'fixes', true],
  ['sex', 'sexes', true],
  ['invoice', 'invoices', true],
  ['voice', 'voices', true],
  ['choice', 'choices', true],
  // Latin -is
  ['axis', 'axes', true],
  ['tax', 'taxes', true],
  ['eclipse', 'eclipses', true],
  ['ellipse', 'ellipses', true],
  ['ellipsis', 'ellipses', true],
  ['oasis', 'oases', true],
  ['thesis', 'theses', true],
  ['hypothesis', 'hypotheses', true],
  ['parenthesis', 'parentheses', true],
  ['analysis', 'analyses', true],
  ['antithesis', 'antitheses', true],
  ['diagnosis', 'diagnoses', true],
  ['prognosis', 'prognoses', true],
  ['synopsis', 'synopses', true],
  ['synapse', 'synapses', true],
  ['waste', 'wastes', true],
  ['psi', 'psis', true],
  ['pepsi', 'pepsis', true],
];

// The rows flect_test.go's init() appends from the dictionary: singular -> plural, and the alternative plural
// as a second row. flect's own test only singularizes these; here the singular -> plural direction is checked
// for the main plural (the dictionary answers it directly), and an alternative is checked to stay as it is.
const DICTIONARY_ROWS: readonly (readonly [string, string, string?])[] = [
  ['aircraft', 'aircraft'],
  ['beef', 'beef', 'beefs'],
  ['bison', 'bison'],
  ['blues', 'blues'],
  ['chassis', 'chassis'],
  ['deer', 'deer'],
  ['fish', 'fish', 'fishes'],
  ['moose', 'moose'],
  ['police', 'police'],
  ['salmon', 'salmon', 'salmons'],
  ['series', 'series'],
  ['sheep', 'sheep'],
  ['shrimp', 'shrimp', 'shrimps'],
  ['species', 'species'],
  ['swine', 'swine', 'swines'],
  ['trout', 'trout', 'trouts'],
  ['tuna', 'tuna', 'tunas'],
  ['you', 'you'],
  ['child', 'children'],
  ['ox', 'oxen'],
  ['foot', 'feet'],
  ['goose', 'geese'],
  ['man', 'men'],
  ['human', 'humans'],
  ['louse', 'lice'],
  ['mouse', 'mice'],
  ['tooth', 'teeth'],
  ['woman', 'women'],
  ['die', 'dice'],
  ['person', 'people'],
  ['adieu', 'adieux', 'adieus'],
  ['fabliau', 'fabliaux'],
  ['bureau', 'bureaus', 'bureaux'],
  ['criterion', 'criteria'],
  ['ganglion', 'ganglia', 'ganglions'],
  ['lexicon', 'lexica', 'lexicons'],
  ['mitochondrion', 'mitochondria', 'mitochondrions'],
  ['noumenon', 'noumena'],
  ['phenomenon', 'phenomena'],
  ['taxon', 'taxa'],
  ['media', 'media'],
  ['medium', 'media', 'mediums'],
  ['stadium', 'stadiums', 'stadia'],
  ['aquarium', 'aquaria', 'aquariums'],
  ['auditorium', 'auditoria', 'auditoriums'],
  ['symposium', 'symposia', 'symposiums'],
  ['curriculum', 'curriculums', 'curricula'],
  ['quota', 'quotas'],
  ['alumnus', 'alumni', 'alumnuses'],
  ['bacillus', 'bacilli'],
  ['cactus', 'cacti', 'cactuses'],
  ['coccus', 'cocci'],
  ['focus', 'foci', 'focuses'],
  ['locus', 'loci', 'locuses'],
  ['nucleus', 'nuclei', 'nucleuses'],
  ['octopus', 'octupuses', 'octopi'],
  ['radius', 'radii', 'radiuses'],
  ['syllabus', 'syllabi'],
  ['corpus', 'corpora', 'corpuses'],
  ['genus', 'genera'],
  ['alumna', 'alumnae'],
  ['vertebra', 'vertebrae'],
  ['differentia', 'differentiae'],
  ['minutia', 'minutiae'],
  ['vita', 'vitae'],
  ['larva', 'larvae'],
  ['postcava', 'postcavae'],
  ['praecava', 'praecavae'],
  ['uva', 'uvae'],
  ['apex', 'apices', 'apexes'],
  ['codex', 'codices', 'codexes'],
  ['index', 'indices', 'indexes'],
  ['latex', 'latices', 'latexes'],
  ['vertex', 'vertices', 'vertexes'],
  ['vortex', 'vortices', 'vortexes'],
  ['appendix', 'appendices', 'appendixes'],
  ['radix', 'radices', 'radixes'],
  ['helix', 'helices', 'helixes'],
  ['axis', 'axes'],
  ['crisis', 'crises'],
  ['ellipsis', 'ellipses'],
  ['genesis', 'geneses'],
  ['oasis', 'oases'],
  ['thesis', 'theses'],
  ['testis', 'testes'],
  ['base', 'bases'],
  ['basis', 'bases'],
  ['alias', 'aliases'],
  ['vedalia', 'vedalias'],
  ['use', 'uses'],
  ['abuse', 'abuses'],
  ['cause', 'causes'],
  ['clause', 'clauses'],
  ['cruse', 'cruses'],
  ['excuse', 'excuses'],
  ['fuse', 'fuses'],
  ['house', 'houses'],
  ['misuse', 'misuses'],
  ['muse', 'muses'],
  ['pause', 'pauses'],
  ['ache', 'aches'],
  ['topaz', 'topazes'],
  ['buffalo', 'buffaloes', 'buffalos'],
  ['potato', 'potatoes'],
  ['tomato', 'tomatoes'],
  ['equipment', 'equipment'],
  ['information', 'information'],
  ['jeans', 'jeans'],
  ['money', 'money'],
  ['news', 'news'],
  ['rice', 'rice'],
  ['dwarf', 'dwarfs', 'dwarves'],
  ['hoof', 'hoofs', 'hooves'],
  ['thief', 'thieves'],
  ['chive', 'chives'],
  ['hive', 'hives'],
  ['move', 'moves'],
  ['movie', 'movies'],
  ['cookie', 'cookies'],
  ['pretorium', 'pretoriums'],
  ['agenda', 'agendas'],
  ['formula', 'formulas', 'formulae'],
  ['shoe', 'shoes'],
  ['toe', 'toes'],
  ['graffiti', 'graffiti'],
  ['ID', 'IDs'],
];

describe('flectPluralize: flect v1.0.3 assertion table', () => {
  it('pluralises every singular of the table and leaves every plural as it is', () => {
    const wrong: string[] = [];
    for (const [singular, plural, check] of FLECT_ASSERTIONS) {
      if (!check) continue;
      if (flectPluralize(singular) !== plural)
        wrong.push(`${singular} -> ${flectPluralize(singular)} (want ${plural})`);
      if (flectPluralize(plural) !== plural) wrong.push(`${plural} -> ${flectPluralize(plural)} (want it kept)`);
    }
    assert.deepEqual(wrong, []);
  });

  it('the dictionary rows: each singular gets its plural, plurals and alternatives stay', () => {
    const wrong: string[] = [];
    for (const [singular, plural, alternative] of DICTIONARY_ROWS) {
      if (flectPluralize(singular) !== plural)
        wrong.push(`${singular} -> ${flectPluralize(singular)} (want ${plural})`);
      if (flectPluralize(plural) !== plural) wrong.push(`${plural} -> ${flectPluralize(plural)} (want it kept)`);
      if (alternative && flectPluralize(alternative) !== alternative)
        wrong.push(`${alternative} -> ${flectPluralize(alternative)} (want it kept)`);
    }
    assert.deepEqual(wrong, []);
  });

  it('no longer takes *eet words for plurals (flect v0.2.5 dropped the oot -> eet rule, gobuffalo/flect#54)', () => {
    for (const w of ['fleet', 'street', 'tweet', 'sheet', 'sweet']) assert.equal(flectPluralize(w), `${w}s`, w);
    assert.equal(flectPluralize('foot'), 'feet');
    assert.equal(flectPluralize('feet'), 'feet');
  });

  it('decides by the last word, keeping the case of the rest', () => {
    assert.equal(flectPluralize('TestQuota'), 'TestQuotas');
    assert.equal(flectPluralize('BigMouse'), 'BigMice');
    assert.equal(flectPluralize('big_mouse'), 'big_mice');
    assert.equal(flectPluralize('Person'), 'People');
    assert.equal(flectPluralize('person'), 'people');
  });
});

describe("wordsOf: flect's word split", () => {
  it('splits on case changes, separators and after known acronyms', () => {
    assert.deepEqual(wordsOf('TestQuota'), ['Test', 'Quota']);
    assert.deepEqual(wordsOf('node_child'), ['node', 'child']);
    assert.deepEqual(wordsOf('funky jeans'), ['funky', 'jeans']);
    assert.deepEqual(wordsOf('DNSRecord'), ['DNS', 'Record']);
    assert.deepEqual(wordsOf('HTTPRoute'), ['HTTP', 'Route']);
    assert.deepEqual(wordsOf('ABCThing'), ['ABCThing']);
    assert.deepEqual(wordsOf('api'), ['API']);
    assert.deepEqual(wordsOf('  '), []);
  });
});

describe('pluralize: resource names (controller-gen: strings.ToLower(flect.Pluralize(Kind)))', () => {
  it('gives the plurals Kubernetes and Kubebuilder projects use', () => {
    const cases: Record<string, string> = {
      Fleet: 'fleets',
      Street: 'streets',
      Tweet: 'tweets',
      CronJob: 'cronjobs',
      TestQuota: 'testquotas',
      Policy: 'policies',
      NetworkPolicy: 'networkpolicies',
      Endpoints: 'endpoints',
      EndpointSlice: 'endpointslices',
      Ingress: 'ingresses',
      IngressClass: 'ingressclasses',
      Status: 'statuses',
      Memcached: 'memcacheds',
      Gateway: 'gateways',
      HTTPRoute: 'httproutes',
      Deployment: 'deployments',
      StatefulSet: 'statefulsets',
      DaemonSet: 'daemonsets',
      ReplicaSet: 'replicasets',
      Pod: 'pods',
      Node: 'nodes',
      Namespace: 'namespaces',
      Secret: 'secrets',
      ConfigMap: 'configmaps',
      Service: 'services',
      ServiceAccount: 'serviceaccounts',
      PersistentVolumeClaim: 'persistentvolumeclaims',
      StorageClass: 'storageclasses',
      CustomResourceDefinition: 'customresourcedefinitions',
      Lease: 'leases',
      Event: 'events',
      Job: 'jobs',
      Guestbook: 'guestbooks',
      ResourceQuota: 'resourcequotas',
      PriorityClass: 'priorityclasses',
      Person: 'people',
      Salesperson: 'salespeople',
      Index: 'indices',
      Matrix: 'matrices',
      Box: 'boxes',
      Mesh: 'meshes',
      Match: 'matches',
      Key: 'keys',
      Proxy: 'proxies',
      Photo: 'photos',
      Hero: 'heroes',
      Quiz: 'quizzes',
      Data: 'data',
      Metadata: 'metadata',
      Series: 'series',
      Database: 'databases',
      Size: 'sizes',
      Woman: 'women',
      Nucleus: 'nuclei',
      Criterion: 'criteria',
      Radio: 'radios',
      Foo: 'foos',
      Widget: 'widgets',
      Zoo: 'zoos',
      Bus: 'buses',
      Virus: 'viruses',
      Leaf: 'leaves',
      Hello: 'hellos',
      Gizmo: 'gizmoes',
      Repo: 'repoes',
      Analysis: 'analyses',
      Child: 'children',
      Wolf: 'wolves',
      Knife: 'knives',
      Class: 'classes',
    };
    const wrong = Object.entries(cases)
      .filter(([k, p]) => pluralize(k) !== p)
      .map(([k, p]) => `${k} -> ${pluralize(k)} (want ${p})`);
    assert.deepEqual(wrong, []);
  });

  it('uses the Kind as written: the last camel-case word decides, as in controller-gen', () => {
    assert.equal(pluralize('WildOx'), 'wildoxen'); // "ox" is an exact word: only whole, so the Kind's case matters
    assert.equal(pluralize('wildox'), 'wildoxes');
    assert.equal(pluralize('HostAlias'), 'hostaliases');
    assert.equal(pluralize('DNSRecord'), 'dnsrecords');
    assert.equal(pluralize('ID'), 'ids');
  });

  it('is the one rule: manifests, project naming and resourceOf give the same answer', () => {
    assert.equal(fromCrd, pluralize);
    assert.equal(fromProject, pluralize);
    for (const kind of ['CronJob', 'Fleet', 'WildOx', 'TestQuota']) assert.equal(resourceOf(kind), pluralize(kind));
  });

  it('matches suffix rules against the last word as written, as flect v1.0.3 does', () => {
    // flect's "S" -> "Ses" rule only fires on a capital S, so an acronym Kind differs from its lower-cased form.
    assert.equal(pluralize('ClusterDNS'), 'clusterdnses');
    assert.equal(pluralize('clusterdns'), 'clusterdns');
    // flect replaces the last word by trimming it off the original; an acronym part is upper-cased first, so the
    // trim misses and the plural is appended: controller-gen's own answer for such a Kind.
    assert.equal(flectPluralize('Ids'), 'IdsIDSes');
  });
});
