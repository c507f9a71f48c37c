package main

// Kubernetes' tables, as the tests use them, turned into corpus cases. Each function below reads
// what one test's loop does with its table (which validator, isRoot, which assertion) and says
// the same in the corpus's terms; see packages/cel/test/corpus/README.md for the case kinds.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

type table struct {
	Rows []map[string]any `json:"rows"`
	Pos  []struct {
		Row   int    `json:"row"`
		Field string `json:"field"`
		Value string `json:"value"`
		Line  int    `json:"line"`
	} `json:"pos"`
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(v)
}

// the schema of a dumped Structural
func schemaOf(v any) map[string]any {
	m, _ := v.(map[string]any)
	if m == nil {
		return nil
	}
	s, _ := m["@schema"].(map[string]any)
	return s
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func num(v any) int64 {
	if n, ok := v.(json.Number); ok {
		i, err := n.Int64()
		if err == nil {
			return i
		}
		f, _ := n.Float64()
		return int64(f)
	}
	return 0
}

func boolean(v any) bool {
	b, _ := v.(bool)
	return b
}

// sortedKeys of a JSON object
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func withRules(s map[string]any, rules []any) map[string]any {
	out := map[string]any{}
	for k, v := range s {
		out[k] = v
	}
	out["x-kubernetes-validations"] = rules
	return out
}

// setOptionalOldSelf: what TestOptionalOldSelf* do to the root's rules before validating.
func setOptionalOldSelf(s map[string]any) map[string]any {
	rules, _ := s["x-kubernetes-validations"].([]any)
	var out []any
	for _, r := range rules {
		m := map[string]any{}
		for k, v := range r.(map[string]any) {
			m[k] = v
		}
		m["optionalOldSelf"] = true
		out = append(out, m)
	}
	return withRules(s, out)
}

func apiextensionsCorpus(dump string, funcs map[string]*funcInfo, version string) (*corpus, error) {
	mod := "k8s.io/apiextensions-apiserver@" + version
	c := &corpus{
		File:      "k8s-apiextensions.json",
		Source:    mod + " pkg/apiserver/schema/cel",
		Generator: "packages/cel/test/oracle/celcorpus (go run .)",
		Note:      "validate: the object is validated against the schema (rule, when given, replaces the root's x-kubernetes-validations); compile and cost: the rule is compiled for the schema it is given with; field paths start at 'root' as in the tests",
		Schemas:   map[string]any{},
		Objects:   map[string]any{},
	}
	order := []string{"TestValidationExpressions", "TestValidationExpressionsAtSchemaLevels", "TestCELMaxRecursionDepth", "TestMessageExpression", "TestReasonAndFldPath", "TestOptionalOldSelf", "TestOptionalOldSelfCheckForNull", "TestOptionalOldSelfIsOptionalType", "TestCelCompilation", "TestCostEstimation", "TestMetadataNameCostIsBounded", "TestCelCostStability", "TestCelEstimatedCostStability"}
	c.exclude(mod+"/pkg/apiserver/schema/cel/validation_test.go TestCELValidationLimit, TestCELValidationContextCancellation", 2, "runtime cost budget and context cancellation: kubeforge/testing meters no runtime cost and has no evaluation context")
	c.exclude(mod+"/pkg/apiserver/schema/cel/validation_test.go TestRatcheting", 1, "ratcheting of unchanged values: not part of the issue's evaluation cases")
	c.exclude(mod+"/pkg/apiserver/schema/cel/validation_test.go TestValidateFieldPath", 1, "tests ValidFieldPath, a Go helper, not CEL")
	for _, fn := range order {
		info := funcs[fn]
		if info == nil {
			return nil, fmt.Errorf("no table was dumped for %s", fn)
		}
		var t table
		if err := readJSON(filepath.Join(dump, "table-"+fn+".json"), &t); err != nil {
			return nil, err
		}
		if len(t.Rows) != len(info.rowLines) {
			return nil, fmt.Errorf("%s: %d rows dumped, %d rows in the source", fn, len(t.Rows), len(info.rowLines))
		}
		src := func(line int) string { return fmt.Sprintf("%s/pkg/apiserver/schema/cel/%s:%d", mod, info.file, line) }
		names := map[string]int{}
		for _, row := range t.Rows {
			names[str(row["name"])]++
		}
		for i, row := range t.Rows {
			rowName := str(row["name"])
			if rowName == "" || names[rowName] > 1 {
				rowName = fmt.Sprintf("%s#%d", rowName, i)
			}
			id := func(parts ...any) string {
				s := "apiext/" + fn + "/" + rowName
				for _, p := range parts {
					s += fmt.Sprintf("/%v", p)
				}
				return s
			}
			// the line of an element of a list or map literal of the row (the row's line when unknown)
			line := func(field, value string) int {
				for _, p := range t.Pos {
					if p.Row == i && p.Field == field && p.Value == value {
						return p.Line
					}
				}
				return info.rowLines[i]
			}
			rowSrc := src(info.rowLines[i])
			schema := schemaOf(row["schema"])
			validate := func(cs map[string]any, s map[string]any, obj, old any, isRoot bool) map[string]any {
				cs["kind"] = "validate"
				cs["schema"] = share(c.Schemas, "s", s)
				cs["isRoot"] = isRoot
				cs["object"] = share(c.Objects, "o", obj)
				if old != nil {
					cs["oldObject"] = share(c.Objects, "o", old)
				}
				return cs
			}
			switch fn {
			case "TestValidationExpressions", "TestCELMaxRecursionDepth":
				// valid: validator(s, isRoot) finds no error; errors: NewValidator(s, true) finds some, each
				// an Invalid error containing the string
				extra := func(cs map[string]any) map[string]any {
					if n := num(row["costBudget"]); n != 0 {
						cs["costBudget"] = n
					}
					if n := num(row["expectedCost"]); n != 0 {
						cs["runtimeCost"] = n
					}
					return cs
				}
				valid, _ := row["valid"].([]any)
				for j, r := range valid {
					rule := str(r)
					cs := validate(map[string]any{"id": id("valid", j), "source": src(line("valid", rule))}, schema, row["obj"], row["oldObj"], boolean(row["isRoot"]))
					cs["rule"] = map[string]any{"rule": rule}
					cs["expect"] = map[string]any{"pass": true}
					c.add(extra(cs))
				}
				errs, _ := row["errors"].(map[string]any)
				for j, rule := range sortedKeys(errs) {
					cs := validate(map[string]any{"id": id("errors", j), "source": src(line("errors", rule))}, schema, row["obj"], row["oldObj"], true)
					cs["rule"] = map[string]any{"rule": rule}
					cs["expect"] = map[string]any{"mode": "each", "errors": []any{map[string]any{"type": "FieldValueInvalid", "contains": str(errs[rule])}}}
					c.add(extra(cs))
				}
			case "TestValidationExpressionsAtSchemaLevels", "TestOptionalOldSelf", "TestOptionalOldSelfIsOptionalType":
				// every error is Invalid and contains a different one of the strings, and every string is matched
				obj, old := row["obj"], row["oldObj"]
				isRoot := true
				if fn != "TestValidationExpressionsAtSchemaLevels" {
					schema = setOptionalOldSelf(schema)
				}
				if fn == "TestOptionalOldSelfIsOptionalType" {
					old, isRoot = obj, false
				}
				cs := validate(map[string]any{"id": id(), "source": rowSrc}, schema, obj, old, isRoot)
				cs["expect"] = matchAll(row["errors"])
				c.add(cs)
			case "TestOptionalOldSelfCheckForNull":
				s := setOptionalOldSelf(schema)
				cs := validate(map[string]any{"id": id("null old"), "source": rowSrc}, s, row["obj"], nil, false)
				cs["expect"] = map[string]any{"pass": true}
				c.add(cs)
				cs = validate(map[string]any{"id": id("non-null old"), "source": rowSrc}, s, row["obj"], row["oldObj"], false)
				cs["expect"] = map[string]any{"pass": true}
				c.add(cs)
			case "TestMessageExpression":
				// rule "false" on {str: string}, with the row's message and messageExpression; exactly one error
				rule := map[string]any{"rule": "false", "messageExpression": str(row["messageExpression"])}
				if m := str(row["message"]); m != "" {
					rule["message"] = m
				}
				s := map[string]any{"type": "object", "properties": map[string]any{"str": map[string]any{"type": "string"}}, "x-kubernetes-validations": []any{rule}}
				cs := validate(map[string]any{"id": id(), "source": rowSrc}, s, map[string]any{"str": "a string"}, nil, false)
				want := map[string]any{}
				if e := str(row["expectedValidationErr"]); e != "" {
					want["contains"] = e
				}
				cs["expect"] = map[string]any{"mode": "one", "errors": []any{want}}
				if n := num(row["costBudget"]); n != 0 {
					cs["costBudget"] = n
				}
				if n := num(row["perCallLimit"]); n != 0 {
					cs["perCallLimit"] = n
				}
				if n := num(row["expectedRemainingBudget"]); n != 0 {
					cs["remainingBudget"] = n
				}
				if e := str(row["expectedLogErr"]); e != "" {
					cs["logged"] = e
				}
				c.add(cs)
			case "TestReasonAndFldPath":
				// exactly these errors, by type and field
				var want []any
				errs, _ := row["errors"].([]any)
				for _, e := range errs {
					m := e.(map[string]any)
					want = append(want, map[string]any{"type": str(m["Type"]), "field": str(m["Field"])})
				}
				cs := validate(map[string]any{"id": id(), "source": rowSrc}, schema, row["obj"], nil, true)
				cs["expect"] = map[string]any{"mode": "exact", "errors": want}
				c.add(cs)
			case "TestCelCompilation":
				// each rule of the schema compiled (Compile, SchemaDeclType(s, false)) and matched
				if boolean(row["unmodified"]) {
					c.exclude(rowSrc+" "+str(row["name"]), 1, "a test-only library (fakeFunction) in the stored-expressions environment")
					continue
				}
				input := schemaOf(row["input"])
				rules, _ := input["x-kubernetes-validations"].([]any)
				results, _ := row["expectedResults"].([]any)
				if len(rules) != len(results) {
					return nil, fmt.Errorf("%s: %d rules, %d expected results", rowSrc, len(rules), len(results))
				}
				for j, r := range rules {
					c.add(map[string]any{"id": id(j), "source": rowSrc, "kind": "compile", "schema": share(c.Schemas, "s", input), "rule": r, "isRoot": false, "expect": compileExpect(results[j])})
				}
			case "TestCostEstimation":
				// schemaChecker: the root rule of the generated schema compiles; its MaxCost equals the expected
				// cost when that is not 0, and is at least the "exceeds" figure when that is not 0
				gens := row["schemaGenerator"].(map[string]any)["@calls"].(map[string]any)
				for _, v := range []struct{ name, gen, cost, exceeds string }{{"calc", "nil", "expectedCalcCost", "expectCalcCostExceedsLimit"}, {"set", "setMaxElements", "expectedSetCost", "expectedSetCostExceedsLimit"}} {
					s := schemaOf(gens[v.gen])
					rules, _ := s["x-kubernetes-validations"].([]any)
					if len(rules) != 1 {
						return nil, fmt.Errorf("%s: %d root rules", rowSrc, len(rules))
					}
					expect := map[string]any{"compiles": true}
					if n := num(row[v.cost]); n != 0 {
						expect["cost"] = n
					}
					if n := num(row[v.exceeds]); n != 0 {
						expect["atLeast"] = n
					}
					c.add(map[string]any{"id": id(v.name), "source": rowSrc, "kind": "cost", "schema": share(c.Schemas, "s", s), "rule": rules[0], "isRoot": false, "expect": expect})
				}
			case "TestMetadataNameCostIsBounded":
				rule := map[string]any{}
				for k, v := range row["rule"].(map[string]any) {
					if s, ok := v.(string); ok && s != "" && !strings.HasPrefix(k, "@") {
						rule[strings.ToLower(k[:1])+k[1:]] = s
					}
				}
				s := map[string]any{"type": "object", "x-kubernetes-validations": []any{rule}}
				c.add(map[string]any{"id": id(), "source": rowSrc, "kind": "cost", "schema": share(c.Schemas, "s", s), "rule": rule, "isRoot": true, "expect": map[string]any{"compiles": true, "above": 0, "atMost": 10000}})
			case "TestCelCostStability":
				// NewValidator(s, true): no error, and the runtime cost (kept, not compared: no runtime cost in kubeforge)
				costs, _ := row["expectCost"].(map[string]any)
				for j, rule := range sortedKeys(costs) {
					cs := validate(map[string]any{"id": id(j), "source": src(line("expectCost", rule))}, schema, row["obj"], nil, true)
					cs["rule"] = map[string]any{"rule": rule}
					cs["expect"] = map[string]any{"pass": true}
					cs["runtimeCost"] = num(costs[rule])
					c.add(cs)
				}
			case "TestCelEstimatedCostStability":
				costs, _ := row["expectCost"].(map[string]any)
				for j, rule := range sortedKeys(costs) {
					expect := map[string]any{"compiles": true}
					if n := costs[rule].(json.Number); n.String() != "0" {
						expect["cost"] = n
					}
					c.add(map[string]any{"id": id(j), "source": src(line("expectCost", rule)), "kind": "cost", "schema": share(c.Schemas, "s", schema), "rule": map[string]any{"rule": rule}, "isRoot": false, "expect": expect})
				}
			}
		}
	}
	return c, nil
}

// matchAll: every error an Invalid one matching a different string, every string matched.
func matchAll(v any) map[string]any {
	list, _ := v.([]any)
	if len(list) == 0 {
		return map[string]any{"pass": true}
	}
	var want []any
	for _, s := range list {
		want = append(want, map[string]any{"type": "FieldValueInvalid", "contains": str(s)})
	}
	return map[string]any{"mode": "match", "errors": want}
}

// compileExpect: a validationMatcher of compilation_test.go in the corpus's terms.
func compileExpect(m any) map[string]any {
	out := map[string]any{}
	var visit func(m any)
	visit = func(m any) {
		switch x := m.(type) {
		case []any: // allMatcher
			for _, y := range x {
				visit(y)
			}
		case bool: // transitionRuleMatcher
			out["transition"] = x
		case map[string]any:
			switch x["@type"] {
			case "cel.noErrorMatcher":
				out["ok"] = true
			case "cel.errorMatcher":
				out["error"] = str(x["contains"])
			case "cel.messageExpressionErrorMatcher":
				out["messageExpressionError"] = str(x["contains"])
			case "cel.fnMatcher":
				// a matcher with its own code: only the one the table has today is understood
				if str(x["msg"]) != "program is nil" {
					panic(fmt.Sprintf("unknown fnMatcher %q: teach the extractor what it checks", str(x["msg"])))
				}
				out["noProgram"] = true
			default:
				panic(fmt.Sprintf("unknown matcher %v", x))
			}
		default:
			panic(fmt.Sprintf("unknown matcher %v", m))
		}
	}
	visit(m)
	return out
}

// ---- k8s.io/apiserver/pkg/cel/library: recorded calls of the assertion helpers ----

var dedupSuffix = regexp.MustCompile(`#\d\d+$`)

type call struct {
	Test   string         `json:"test"`
	Helper string         `json:"helper"`
	File   string         `json:"file"`
	Line   int            `json:"line"`
	Rows   map[string]any `json:"rows"`
	Args   []any          `json:"args"`
}

func libraryCorpus(dump string, funcs map[string]*funcInfo, version string) (*corpus, error) {
	mod := "k8s.io/apiserver@" + version
	c := &corpus{
		File:      "k8s-library.json",
		Source:    mod + " pkg/cel/library",
		Generator: "packages/cel/test/oracle/celcorpus (go run .)",
		Note:      "expressions without variables, as the library tests compile and run them; cost: cel-go's estimate (min..max) with the library's cost estimator",
	}
	f, err := os.Open(filepath.Join(dump, "calls.jsonl"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var calls []call
	for sc.Scan() {
		var cl call
		d := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		d.UseNumber()
		if err := d.Decode(&cl); err != nil {
			return nil, err
		}
		calls = append(calls, cl)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	names, seen := map[string]int{}, map[string]int{}
	for _, cl := range calls {
		names["lib/"+dedupSuffix.ReplaceAllString(cl.Test, "")]++
	}
	// source order: test function, then line; the calls of one line (a loop over a map) by id
	defer func() {
		rank := map[string]int{}
		for _, cl := range calls {
			fn := strings.SplitN(cl.Test, "/", 2)[0]
			if _, ok := rank[fn]; !ok {
				rank[fn] = len(rank)
			}
		}
		key := func(cs map[string]any) (int, int, string) {
			id := cs["id"].(string)
			fn := strings.SplitN(strings.TrimPrefix(id, "lib/"), "/", 2)[0]
			src := cs["source"].(string)
			line, _ := strconv.Atoi(src[strings.LastIndex(src, ":")+1:])
			return rank[fn], line, id
		}
		sort.SliceStable(c.Cases, func(i, j int) bool {
			a1, a2, a3 := key(c.Cases[i])
			b1, b2, b3 := key(c.Cases[j])
			if a1 != b1 {
				return a1 < b1
			}
			if a2 != b2 {
				return a2 < b2
			}
			return a3 < b3
		})
	}()
	for _, cl := range calls {
		fn := strings.SplitN(cl.Test, "/", 2)[0]
		info := funcs[fn]
		if info == nil {
			return nil, fmt.Errorf("a call from %s, whose loops were not marked", cl.Test)
		}
		source := fmt.Sprintf("%s/pkg/cel/library/%s:%d", mod, cl.File, cl.Line)
		if l := info.rowOf(cl.Line, cl.Rows, fn); l != 0 && cl.File == info.file {
			source = fmt.Sprintf("%s/pkg/cel/library/%s:%d", mod, info.file, l)
		}
		expr := str(cl.Args[0])
		// t.Run numbers repeated names (#01, #02) in the order the test made them, which for a
		// table built from a Go map is not fixed: the expression tells repeated names apart instead
		id := "lib/" + dedupSuffix.ReplaceAllString(cl.Test, "")
		if names[id] > 1 {
			id += " [" + expr + "]"
		}
		if seen[id]++; seen[id] > 1 {
			id += fmt.Sprintf(" #%d", seen[id])
		}
		if fn == "TestAuthzLibrary" || strings.Contains(expr, "authorizer.") {
			c.exclude(mod+"/pkg/cel/library/cost_test.go TestAuthzLibrary", 1, "the authorizer library: admission policies only, not in CRD validation rules")
			continue
		}
		if strings.Contains(expr, "jsonpatch.") {
			c.exclude(source, 1, "the JSONPatch library: mutating admission policies only, not in CRD validation rules")
			continue
		}
		switch cl.Helper {
		case "testCost":
			est := cl.Args[1].(map[string]any)
			c.add(map[string]any{"id": id + "#eval", "source": source, "kind": "expr", "expr": expr, "expect": map[string]any{"evaluates": true}})
			c.add(map[string]any{"id": id + "#cost", "source": source, "kind": "cost", "expr": expr, "expect": map[string]any{"min": est["Min"], "max": est["Max"]}, "runtimeCost": cl.Args[2]})
		case "testQuantity", "testIP", "testCIDR", "testSemver":
			cs := map[string]any{"id": id, "source": source, "kind": "expr", "expr": expr}
			compileErrs, _ := cl.Args[3].([]any)
			runtimeErr := str(cl.Args[2])
			switch {
			case len(compileErrs) > 0:
				cs["expect"] = map[string]any{"compileErrors": compileErrs}
			case runtimeErr != "" && (cl.Helper == "testIP" || cl.Helper == "testCIDR"):
				cs["expect"] = map[string]any{"evalError": runtimeErr}
			case runtimeErr != "":
				cs["expect"] = map[string]any{"evalErrorMatches": runtimeErr}
			default:
				v, _ := cl.Args[1].(map[string]any)
				if v == nil || v["@cel"] == nil {
					return nil, fmt.Errorf("%s: no expected value", source)
				}
				cs["expect"] = map[string]any{"value": v["@cel"]}
			}
			if cl.Helper == "testSemver" {
				cs["libraryVersion"] = cl.Args[4]
			}
			c.add(cs)
		default:
			return nil, fmt.Errorf("unknown helper %s", cl.Helper)
		}
	}
	return c, nil
}
