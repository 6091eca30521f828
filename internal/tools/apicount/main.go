// Command apicount counts a module's exported API, as issue reviews quote it:
// exported top-level identifiers (types, funcs, consts, vars, and methods
// on exported types) and exported struct fields and interface methods, per
// package, outside internal/, examples/, testdata/, main packages and
// _test.go files.
//
// Usage: go run ./internal/tools/apicount DIR [v]   (v lists every name)
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: apicount DIR [v]")
		os.Exit(2)
	}
	if err := run(os.Stdout, os.Args[1], len(os.Args) > 2); err != nil {
		fmt.Fprintln(os.Stderr, "apicount:", err)
		os.Exit(1)
	}
}

// run writes the per-package counts of the Go tree at root to w, and with
// verbose every name counted.
func run(w io.Writer, root string, verbose bool) error {
	if _, err := os.Stat(root); err != nil {
		return err
	}
	type cnt struct{ ids, fields int }
	per := map[string]*cnt{}
	var names []string
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		if info.IsDir() {
			b := info.Name()
			if b == "internal" || b == "testdata" || b == "node_modules" || strings.HasPrefix(b, ".") && p != root || b == "examples" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		if err != nil || f.Name.Name == "main" {
			return nil
		}
		dir, _ := filepath.Rel(root, filepath.Dir(p))
		c := per[dir]
		if c == nil {
			c = &cnt{}
			per[dir] = c
		}
		add := func(kind, n string) { c.ids++; names = append(names, dir+" "+kind+" "+n) }
		addF := func(n string) { c.fields++; names = append(names, dir+" field "+n) }
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv != nil {
					t := d.Recv.List[0].Type
					if s, ok := t.(*ast.StarExpr); ok {
						t = s.X
					}
					if ix, ok := t.(*ast.IndexExpr); ok {
						t = ix.X
					}
					if ix, ok := t.(*ast.IndexListExpr); ok {
						t = ix.X
					}
					id, ok := t.(*ast.Ident)
					if !ok || !id.IsExported() {
						continue
					}
					add("method", id.Name+"."+d.Name.Name)
					continue
				}
				add("func", d.Name.Name)
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						add("type", s.Name.Name)
						switch t := s.Type.(type) {
						case *ast.StructType:
							for _, fl := range t.Fields.List {
								for _, n := range fl.Names {
									if n.IsExported() {
										addF(s.Name.Name + "." + n.Name)
									}
								}
								if len(fl.Names) == 0 {
									addF(s.Name.Name + ".(embedded)")
								}
							}
						case *ast.InterfaceType:
							for _, fl := range t.Methods.List {
								for _, n := range fl.Names {
									if n.IsExported() {
										addF(s.Name.Name + "." + n.Name)
									}
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								add(strings.ToLower(d.Tok.String()), n.Name)
							}
						}
					}
				}
			}
		}
		return nil
	})
	var dirs []string
	for d := range per {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	ti, tf := 0, 0
	for _, d := range dirs {
		if per[d].ids+per[d].fields == 0 {
			continue
		}
		fmt.Fprintf(w, "%-24s %4d identifiers %4d fields\n", d, per[d].ids, per[d].fields)
		ti += per[d].ids
		tf += per[d].fields
	}
	fmt.Fprintf(w, "%-24s %4d identifiers %4d fields\n", "total", ti, tf)
	if verbose {
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintln(w, n)
		}
	}
	return nil
}
