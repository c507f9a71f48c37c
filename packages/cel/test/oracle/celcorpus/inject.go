package main

// Rewriting a copy of a Kubernetes test file so that running its tests writes what they check
// (hook.go.txt): a test's table is dumped just before the loop that runs it (and the test
// returns there), a helper that asserts on one case is replaced by one that records its
// arguments, and every range loop of a test notes its current index (kfRow), so that a recorded
// call can be traced back to the table row that made it.

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"strconv"
	"strings"
)

// fileSpec says what to do with one test file.
type fileSpec struct {
	name string
	// tables: test functions whose table is dumped (the function returns before running it)
	tables []string
	// helpers: helper functions replaced by recorders
	helpers []string
	// loops: test functions whose range loops note their index
	loops []string
}

// loopInfo: one range loop of a test function, for tracing a recorded call to its row.
type loopInfo struct {
	expr      string // the range expression's source
	keyVar    string
	valueVar  string
	startLine int
	endLine   int
}

// funcInfo: what the extractor knows statically about one test function.
type funcInfo struct {
	file   string
	line   int
	tables map[string]*ast.CompositeLit // local name -> literal assigned to it
	loops  []loopInfo
	fset   *token.FileSet
	// tableVar: the dumped table's name; rowLines: the line of each of its rows
	tableVar string
	rowLines []int
}

type edit struct {
	at, end int // byte offsets; end == at for an insertion
	text    string
}

// rewrite returns the rewritten source of one file and what it learned of its functions.
func rewrite(src []byte, spec fileSpec) ([]byte, map[string]*funcInfo, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, spec.name, src, parser.ParseComments)
	if err != nil {
		return nil, nil, err
	}
	off := func(p token.Pos) int { return fset.Position(p).Offset }
	text := func(n ast.Node) string { return string(src[off(n.Pos()):off(n.End())]) }
	var edits []edit
	infos := map[string]*funcInfo{}
	var appended []string

	has := func(list []string, s string) bool {
		for _, x := range list {
			if x == s {
				return true
			}
		}
		return false
	}

	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil || fd.Recv != nil {
			continue
		}
		name := fd.Name.Name
		if has(spec.helpers, name) {
			edits = append(edits, edit{off(fd.Name.Pos()), off(fd.Name.End()), "kfOrig_" + name})
			params := string(src[off(fd.Type.Params.Opening)+1 : off(fd.Type.Params.Closing)])
			var names []string
			for _, p := range fd.Type.Params.List {
				for _, n := range p.Names {
					names = append(names, n.Name)
				}
			}
			if len(names) == 0 {
				return nil, nil, fmt.Errorf("%s: helper %s has no named parameters", spec.name, name)
			}
			appended = append(appended, fmt.Sprintf("\nfunc %s(%s) {\n\tkfRecord(%s, %q%s)\n}\n", name, params, names[0], name, joinArgs(names[1:])))
			continue
		}
		dumpTable := has(spec.tables, name)
		markLoops := has(spec.loops, name)
		if !dumpTable && !markLoops {
			continue
		}
		info := &funcInfo{file: spec.name, line: fset.Position(fd.Pos()).Line, tables: map[string]*ast.CompositeLit{}, fset: fset}
		infos[name] = info
		// local tables: `x := []T{...}` and `var x = []T{...}`
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			switch s := n.(type) {
			case *ast.AssignStmt:
				for i, l := range s.Lhs {
					if id, ok := l.(*ast.Ident); ok && i < len(s.Rhs) {
						if cl, ok := s.Rhs[i].(*ast.CompositeLit); ok {
							info.tables[id.Name] = cl
						}
					}
				}
			case *ast.ValueSpec:
				for i, id := range s.Names {
					if i < len(s.Values) {
						if cl, ok := s.Values[i].(*ast.CompositeLit); ok {
							info.tables[id.Name] = cl
						}
					}
				}
			}
			return true
		})
		if dumpTable {
			// the first top-level loop over a local table
			var loop *ast.RangeStmt
			for _, st := range fd.Body.List {
				if r, ok := st.(*ast.RangeStmt); ok {
					if id, ok := r.X.(*ast.Ident); ok && info.tables[id.Name] != nil {
						loop = r
						break
					}
				}
			}
			if loop == nil {
				return nil, nil, fmt.Errorf("%s: %s has no top-level loop over a local table", spec.name, name)
			}
			tv := loop.X.(*ast.Ident).Name
			info.tableVar = tv
			lit := info.tables[tv]
			var pos []string
			for i, row := range lit.Elts {
				info.rowLines = append(info.rowLines, fset.Position(row.Pos()).Line)
				rl, ok := row.(*ast.CompositeLit)
				if !ok {
					continue
				}
				for _, el := range rl.Elts {
					kv, ok := el.(*ast.KeyValueExpr)
					if !ok {
						continue
					}
					field, ok := kv.Key.(*ast.Ident)
					if !ok {
						continue
					}
					inner, ok := kv.Value.(*ast.CompositeLit)
					if !ok {
						continue
					}
					switch ty := inner.Type.(type) {
					case *ast.ArrayType:
						if id, ok := ty.Elt.(*ast.Ident); ok && id.Name == "string" {
							for _, e := range inner.Elts {
								pos = append(pos, fmt.Sprintf("{Row: %d, Field: %q, Value: %s, Line: %d}", i, field.Name, text(e), fset.Position(e.Pos()).Line))
							}
						}
					case *ast.MapType:
						if id, ok := ty.Key.(*ast.Ident); ok && id.Name == "string" {
							for _, e := range inner.Elts {
								if kv2, ok := e.(*ast.KeyValueExpr); ok {
									pos = append(pos, fmt.Sprintf("{Row: %d, Field: %q, Value: %s, Line: %d}", i, field.Name, text(kv2.Key), fset.Position(kv2.Pos()).Line))
								}
							}
						}
					}
				}
			}
			call := fmt.Sprintf("kfDump(%q, %s, []kfPos{%s}); return; ", name, tv, strings.Join(pos, ", "))
			edits = append(edits, edit{off(loop.Pos()), off(loop.Pos()), call})
		}
		if markLoops {
			n := 0
			ast.Inspect(fd.Body, func(nd ast.Node) bool {
				r, ok := nd.(*ast.RangeStmt)
				if !ok || r.Key == nil {
					return true
				}
				li := loopInfo{expr: text(r.X), startLine: fset.Position(r.Pos()).Line, endLine: fset.Position(r.End()).Line}
				key := r.Key.(*ast.Ident).Name
				if key == "_" {
					n++
					key = fmt.Sprintf("kfI%d", n)
					edits = append(edits, edit{off(r.Key.Pos()), off(r.Key.End()), key})
				}
				li.keyVar = key
				if v, ok := r.Value.(*ast.Ident); ok {
					li.valueVar = v.Name
				}
				info.loops = append(info.loops, li)
				edits = append(edits, edit{off(r.Body.Lbrace) + 1, off(r.Body.Lbrace) + 1, fmt.Sprintf(" kfRow(%q, %q, %s);", name, li.expr, key)})
				return true
			})
		}
	}
	for _, want := range append(append(append([]string{}, spec.tables...), spec.helpers...), spec.loops...) {
		found := false
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == want {
				found = true
			}
		}
		if !found {
			return nil, nil, fmt.Errorf("%s: no function %s (the test file changed: update the extractor)", spec.name, want)
		}
	}
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].at > edits[j].at })
	out := append([]byte{}, src...)
	for _, e := range edits {
		out = append(out[:e.at], append([]byte(e.text), out[e.end:]...)...)
	}
	var b bytes.Buffer
	b.Write(out)
	for _, a := range appended {
		b.WriteString(a)
	}
	return b.Bytes(), infos, nil
}

func joinArgs(names []string) string {
	var b strings.Builder
	for _, n := range names {
		b.WriteString(", ")
		b.WriteString(n)
	}
	return b.String()
}

// rowOf traces a recorded call (its line and the loop indexes noted when it was made) to the
// line of the table row, or list element, that made it; 0 when it cannot.
func (info *funcInfo) rowOf(callLine int, rows map[string]any, fn string) int {
	// the loops around the call, outermost first
	var active []loopInfo
	for _, l := range info.loops {
		if l.startLine <= callLine && callLine <= l.endLine {
			active = append(active, l)
		}
	}
	sort.SliceStable(active, func(i, j int) bool { return active[i].startLine < active[j].startLine })
	index := func(l loopInfo) (int, bool) {
		v, ok := rows[fn+"\x00"+l.expr]
		if !ok {
			return 0, false
		}
		n, err := strconv.Atoi(fmt.Sprint(v))
		return n, err == nil
	}
	// each loop's current element as a literal, when it is one
	elems := map[string]ast.Expr{} // value variable -> current element
	best := 0
	for _, l := range active {
		i, ok := index(l)
		if !ok {
			continue
		}
		var lit *ast.CompositeLit
		if cl := info.tables[l.expr]; cl != nil {
			lit = cl
		} else if dot := strings.Index(l.expr, "."); dot > 0 {
			if row, ok := elems[l.expr[:dot]].(*ast.CompositeLit); ok {
				for _, el := range row.Elts {
					if kv, ok := el.(*ast.KeyValueExpr); ok {
						if id, ok := kv.Key.(*ast.Ident); ok && id.Name == l.expr[dot+1:] {
							lit, _ = kv.Value.(*ast.CompositeLit)
						}
					}
				}
			}
		}
		if lit == nil || i >= len(lit.Elts) {
			continue
		}
		el := lit.Elts[i]
		if l.valueVar != "" {
			elems[l.valueVar] = el
		}
		best = info.fset.Position(el.Pos()).Line
	}
	return best
}
