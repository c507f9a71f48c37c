// Package v1 is the twin of test/fixtures/manifests/conformance/testdata.kubebuilder.io_externaldocs.
// +groupName=testdata.kubebuilder.io
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// A string whose documentation lives elsewhere.
// +kubebuilder:externalDocs:url="https://example.com/type-docs",description="type-level external docs"
type TypeWithExternalDoc string

// ExternalDocSpec defines the desired state of ExternalDoc
type ExternalDocSpec struct {
	// This tests that external documentation can be attached to a field with url and description.
	// +kubebuilder:externalDocs:url="https://example.com/docs",description="external docs description"
	FieldWithExternalDoc string `json:"fieldWithExternalDoc,omitempty"`

	// This tests that external documentation can be attached with only url.
	// +kubebuilder:externalDocs:url="https://example.com/docs"
	FieldWithExternalDocURLOnly string `json:"fieldWithExternalDocURLOnly,omitempty"`

	// This tests that external documentation from a type is propagated.
	TypeWithExternalDoc TypeWithExternalDoc `json:"typeWithExternalDoc,omitempty"`
}

// ExternalDoc is the Schema for the external docs API
// +kubebuilder:object:root=true
type ExternalDoc struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ExternalDocSpec `json:"spec,omitempty"`
}
