// celcost reads a JSON array of apiextensions.k8s.io/v1 CustomResourceDefinitions on stdin and
// writes, for each, what the API server's code says about its x-kubernetes-validations rules:
//
//   - errors: the field errors of the CRD validation the API server runs on create
//     (apiextensions validation.ValidateCustomResourceDefinition), as their Error() strings;
//   - rules: for every rule of every version's schema, the result of the server's rule
//     compilation (schema/cel.Compile) on the schema node the rule is attached to: the compile
//     errors, the estimated cost (MaxCost), the cardinality the compilation derives from the
//     node's minimum serialized size, the cardinality the CRD validation's schema context
//     derives from the maxItems/maxProperties above the node (null when one is missing), and the
//     same for the messageExpression.
//
// Every number comes from Kubernetes' functions; this program only walks the schema the way the
// CRD validation walks it (properties, items, additionalProperties) and prints. uint64 values
// are printed as strings, since they may exceed what a JSON number keeps exactly.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	schemacel "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/environment"
)

type ruleResult struct {
	Version                  string  `json:"version"`
	Path                     string  `json:"path"`
	Index                    int     `json:"index"`
	Rule                     string  `json:"rule"`
	Error                    string  `json:"error,omitempty"`
	Cost                     string  `json:"cost"`
	Cardinality              string  `json:"cardinality"`
	ContextCardinality       *string `json:"contextCardinality"`
	MessageExpressionError   string  `json:"messageExpressionError,omitempty"`
	MessageExpressionCost    string  `json:"messageExpressionCost"`
	MessageExpressionPresent bool    `json:"messageExpressionCompiled"`
}

type crdResult struct {
	Name   string       `json:"name"`
	Errors []string     `json:"errors"`
	Rules  []ruleResult `json:"rules"`
}

func u(v uint64) string { return strconv.FormatUint(v, 10) }

func main() {
	in, err := io.ReadAll(os.Stdin)
	if err != nil {
		fail(err)
	}
	var crds []apiextensionsv1.CustomResourceDefinition
	if err := json.Unmarshal(in, &crds); err != nil {
		fail(fmt.Errorf("input must be a JSON array of v1 CustomResourceDefinitions: %w", err))
	}
	envSet := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())
	out := make([]crdResult, 0, len(crds))
	for i := range crds {
		v1 := &crds[i]
		apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(v1)
		var crd apiextensions.CustomResourceDefinition
		if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(v1, &crd, nil); err != nil {
			fail(fmt.Errorf("converting %s: %w", v1.Name, err))
		}
		res := crdResult{Name: crd.Name, Errors: []string{}, Rules: []ruleResult{}}
		for _, e := range validation.ValidateCustomResourceDefinition(context.Background(), &crd) {
			res.Errors = append(res.Errors, e.Error())
		}
		// The conversion keeps a schema common to all versions in spec.validation.
		if crd.Spec.Validation != nil && crd.Spec.Validation.OpenAPIV3Schema != nil {
			walk(&res, envSet, "*", "", crd.Spec.Validation.OpenAPIV3Schema, validation.RootCELContext(crd.Spec.Validation.OpenAPIV3Schema))
		}
		for _, v := range crd.Spec.Versions {
			if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
				continue
			}
			walk(&res, envSet, v.Name, "", v.Schema.OpenAPIV3Schema, validation.RootCELContext(v.Schema.OpenAPIV3Schema))
		}
		out = append(out, res)
	}
	enc := json.NewEncoder(os.Stdout)
	if err := enc.Encode(out); err != nil {
		fail(err)
	}
}

// walk compiles the rules of s and descends as the CRD validation does, with the child contexts
// it creates (so that type information and cardinality are the server's).
func walk(res *crdResult, envSet *environment.EnvSet, version, path string, s *apiextensions.JSONSchemaProps, ctx *validation.CELSchemaContext) {
	if s == nil || ctx == nil {
		return
	}
	if len(s.XValidations) > 0 {
		compileAt(res, envSet, version, path, s, ctx)
	}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		prop := s.Properties[name]
		walk(res, envSet, version, path+".properties."+name, &prop, ctx.ChildPropertyContext(&prop, name))
	}
	if s.Items != nil && s.Items.Schema != nil {
		walk(res, envSet, version, path+".items", s.Items.Schema, ctx.ChildItemsContext(s.Items.Schema))
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		walk(res, envSet, version, path+".additionalProperties", s.AdditionalProperties.Schema, ctx.ChildAdditionalPropertiesContext(s.AdditionalProperties.Schema))
	}
}

func compileAt(res *crdResult, envSet *environment.EnvSet, version, path string, s *apiextensions.JSONSchemaProps, ctx *validation.CELSchemaContext) {
	info, err := ctx.TypeInfo()
	if err != nil || info == nil {
		for i, r := range s.XValidations {
			msg := "no type information"
			if err != nil {
				msg = err.Error()
			}
			res.Rules = append(res.Rules, ruleResult{Version: version, Path: path, Index: i, Rule: r.Rule, Error: msg, Cost: "0", Cardinality: "0", MessageExpressionCost: "0"})
		}
		return
	}
	results, err := schemacel.Compile(info.Schema, info.DeclType, celconfig.PerCallLimit, envSet, schemacel.NewExpressionsEnvLoader())
	if err != nil {
		fail(fmt.Errorf("%s %s: %w", version, path, err))
	}
	var ctxCard *string
	if ctx.MaxCardinality != nil {
		c := u(*ctx.MaxCardinality)
		ctxCard = &c
	}
	for i, cr := range results {
		r := ruleResult{
			Version:                  version,
			Path:                     path,
			Index:                    i,
			Rule:                     s.XValidations[i].Rule,
			Cost:                     u(cr.MaxCost),
			Cardinality:              u(cr.MaxCardinality),
			ContextCardinality:       ctxCard,
			MessageExpressionCost:    u(cr.MessageExpressionMaxCost),
			MessageExpressionPresent: cr.MessageExpression != nil,
		}
		if cr.Error != nil {
			r.Error = cr.Error.Detail
		}
		if cr.MessageExpressionError != nil {
			r.MessageExpressionError = cr.MessageExpressionError.Detail
		}
		res.Rules = append(res.Rules, r)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "celcost:", err)
	os.Exit(1)
}
