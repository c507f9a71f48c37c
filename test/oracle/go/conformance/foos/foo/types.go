// Package foo is the twin of test/fixtures/manifests/conformance/bar.example.com_foos.
// +groupName=bar.example.com
package foo

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type FooSpec struct {
	// This tests that defaulted fields are stripped for v1beta1,
	// but not for v1
	// +kubebuilder:default=fooDefaultString
	// +kubebuilder:example=fooExampleString
	DefaultedString string `json:"defaultedString"`
}

type FooStatus struct{}

// +kubebuilder:object:root=true
type Foo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec comments SHOULD appear in the CRD spec
	Spec FooSpec `json:"spec,omitempty"`
	// Status comments SHOULD appear in the CRD spec
	Status FooStatus `json:"status,omitempty"`
}
