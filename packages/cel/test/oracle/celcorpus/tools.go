//go:build tools

package main

// The packages whose tests the extractor runs, and their test dependencies: kept in go.mod by
// `go mod tidy`, and copied into the module that runs them (main.go).
import (
	_ "cel.dev/expr/conformance/test"
	_ "github.com/blang/semver/v4"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/stretchr/testify/require"
	_ "google.golang.org/genproto/googleapis/api/expr/v1alpha1"
	_ "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	_ "k8s.io/apiserver/pkg/cel/library"
	_ "k8s.io/component-base/featuregate/testing"
)
