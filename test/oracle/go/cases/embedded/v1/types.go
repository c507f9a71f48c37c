// Package v1 is the twin of test/fixtures/manifests/oracle/embedded: type-level markers of
// embedded structs (TypeScript: intersection members and base classes), their order, and the
// values that conflict.
// +groupName=embedded.oracle.kubeforge.io
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Common fields.
// +kubebuilder:validation:XValidation:rule="self.a != self.b",message="a and b differ"
// +kubebuilder:validation:MinProperties=1
// +kubebuilder:validation:MaxProperties=5
type Common struct {
	A string `json:"a,omitempty"`
	B string `json:"b,omitempty"`
}

// +kubebuilder:validation:XValidation:rule="has(self.c)",message="c is set"
type Extra struct {
	C string `json:"c,omitempty"`
}

// +kubebuilder:validation:XValidation:rule="self.t != 'q'",message="third"
// +kubebuilder:validation:MinProperties=1
type Third struct {
	T string `json:"t,omitempty"`
}

// +kubebuilder:validation:XValidation:rule="self.z != 'x'",message="z"
type Derived struct {
	Common `json:",inline"`
	Z      string `json:"z,omitempty"`
}

// +kubebuilder:validation:XValidation:rule="self.y != 'x'",message="y"
// +kubebuilder:validation:MaxProperties=9
type MoreDerived struct {
	Derived `json:",inline"`
	Y       string `json:"y,omitempty"`
}

// +kubebuilder:validation:XValidation:rule="self.own != 'q'",message="own"
type ThingSpec struct {
	Common `json:",inline"`
	Extra  `json:",inline"`
	Third  `json:",inline"`
	Own    string `json:"own,omitempty"`
}

// Stamped is embedded in the Kind itself.
// +kubebuilder:validation:XValidation:rule="!has(self.spec) || has(self.stamp)",message="stamped"
// +kubebuilder:validation:MaxProperties=20
type Stamped struct {
	Stamp string `json:"stamp,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:validation:XValidation:rule="!has(self.other) || has(self.spec)",message="own"
// +kubebuilder:validation:MaxProperties=30
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Stamped           `json:",inline"`

	Spec  ThingSpec   `json:"spec,omitempty"`
	Other Derived     `json:"other,omitempty"`
	Chain MoreDerived `json:"chain,omitempty"`

	// Rules of the field's, over a type with embedded rules.
	// +kubebuilder:validation:XValidation:rule="!has(self.y) || self.y != 'q'",message="field"
	Marked MoreDerived `json:"marked,omitempty"`
}
