// Package v1 is the twin of test/fixtures/manifests/conformance/testdata.kubebuilder.io_enums.
// +groupName=testdata.kubebuilder.io
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// +kubebuilder:validation:Enum=Value1;Value2
type EnumType string

const (
	Value1 EnumType = "Value1"
	Value2 EnumType = "Value2"
)

// EnumSpec defines the desired state of Enum
type EnumSpec struct {
	Field EnumType `json:"field,omitempty"`
}

// Enum is a test CRD that contains an enum.
// +kubebuilder:object:root=true
type Enum struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec EnumSpec `json:"spec,omitempty"`
}
