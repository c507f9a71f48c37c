// Package v1 is the twin of test/fixtures/manifests/oracle/fieldtype: validation markers on a
// type and on the field that uses it, the same and different values, and the order of the
// combined CEL rules.
// +groupName=fieldtype.oracle.kubeforge.io
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Word is a lower-case word.
// +kubebuilder:validation:MinLength=2
// +kubebuilder:validation:MaxLength=10
// +kubebuilder:validation:Pattern=`^[a-z]+$`
// +kubebuilder:validation:XValidation:rule="self != 'bad'",message="type rule"
type Word string

// Count is a small number.
// +kubebuilder:validation:Minimum=1
// +kubebuilder:validation:Maximum=100
// +kubebuilder:validation:MultipleOf=1
// +kubebuilder:validation:XValidation:rule="self != 13",message="type rule"
type Count int32

// Ratio is a fraction.
// +kubebuilder:validation:Minimum=0
// +kubebuilder:validation:Maximum=1
// +kubebuilder:validation:ExclusiveMaximum=true
type Ratio float64

// Stamp is a point in time as text.
// +kubebuilder:validation:Format=date-time
type Stamp string

// Mode is one of two modes.
// +kubebuilder:validation:Enum=Fast;Slow
type Mode string

// Words is a list of words.
// +kubebuilder:validation:XValidation:rule="self.size() < 50",message="type list rule"
type Words []Word

// Pair holds two values.
// +kubebuilder:validation:MinProperties=1
// +kubebuilder:validation:XValidation:rule="has(self.a) || has(self.b)",message="type struct rule"
// +kubebuilder:validation:XValidation:rule="!has(self.a) || self.a != 'x'",message="type struct rule 2"
type Pair struct {
	A string `json:"a,omitempty"`
	B string `json:"b,omitempty"`
}

// Labels are labels.
// +kubebuilder:validation:XValidation:rule="self.size() < 9",message="type map rule"
type Labels map[string]string

// Titled is a documented word.
// +kubebuilder:title="Type title"
// +kubebuilder:externalDocs:url="https://example.com/type"
// +kubebuilder:validation:Format=hostname
type Titled string

type ThingSpec struct {
	// Documentation markers on the field and on its type: the field's win.
	// +kubebuilder:title="Field title"
	// +kubebuilder:externalDocs:url="https://example.com/field",description="the field"
	// +kubebuilder:example="abc"
	// +kubebuilder:validation:Format=hostname
	Titled Titled `json:"titled,omitempty"`

	// Field markers that only a field has, over a marked type.
	// +nullable
	// +kubebuilder:default=abc
	Defaulted *Word `json:"defaulted,omitempty"`

	// No field markers: the type's.
	Plain Word `json:"plain,omitempty"`

	// The same bound on the field as on the type.
	// +kubebuilder:validation:MinLength=2
	SameMin Word `json:"sameMin,omitempty"`

	// Tighter bounds on the field.
	// +kubebuilder:validation:MinLength=3
	// +kubebuilder:validation:MaxLength=8
	Tighter Word `json:"tighter,omitempty"`

	// One bound differs from the type's, one is the same: both into allOf.
	// +kubebuilder:validation:MinLength=5
	// +kubebuilder:validation:MaxLength=10
	Mixed Word `json:"mixed,omitempty"`

	// Another pattern on the field.
	// +kubebuilder:validation:Pattern=`^x`
	Patterned Word `json:"patterned,omitempty"`

	// A rule on the field and one on the type.
	// +kubebuilder:validation:XValidation:rule="self != 'worse'",message="field rule"
	// +kubebuilder:validation:XValidation:rule="self != 'worst'",message="field rule 2"
	Ruled Word `json:"ruled,omitempty"`

	// Bounds of a number.
	// +kubebuilder:validation:Maximum=50
	// +kubebuilder:validation:ExclusiveMaximum=true
	// +kubebuilder:validation:Minimum=1
	Count Count `json:"count,omitempty"`

	// Rules on a number.
	// +kubebuilder:validation:XValidation:rule="self != 7",message="field rule"
	CountRuled Count `json:"countRuled,omitempty"`

	// The same exclusive bound.
	// +kubebuilder:validation:Maximum=0.5
	// +kubebuilder:validation:ExclusiveMaximum=true
	Ratio Ratio `json:"ratio,omitempty"`

	// Another format on the field.
	// +kubebuilder:validation:Format=date
	Stamp Stamp `json:"stamp,omitempty"`

	// An enum on the field too.
	// +kubebuilder:validation:Enum=Fast
	Mode Mode `json:"mode,omitempty"`

	// Rules on a list type and its field.
	// +kubebuilder:validation:XValidation:rule="self.size() > 0",message="field list rule"
	Words Words `json:"words,omitempty"`

	// An inline list of the marked item type, with items markers on the field.
	// +kubebuilder:validation:items:MaxLength=6
	// +kubebuilder:validation:items:XValidation:rule="self != 'no'",message="field item rule"
	// +kubebuilder:validation:MinItems=1
	List []Word `json:"list,omitempty"`

	// Rules on a struct type and its field.
	// +kubebuilder:validation:XValidation:rule="!has(self.b) || self.b != 'y'",message="field struct rule"
	Pair Pair `json:"pair,omitempty"`

	// Rules on a map type and its field.
	// +kubebuilder:validation:XValidation:rule="self.size() > 0",message="field map rule"
	Labels Labels `json:"labels,omitempty"`

	// A map of the marked values.
	// +kubebuilder:validation:MaxProperties=4
	Words2 map[string]Word `json:"wordMap,omitempty"`
}

// +kubebuilder:object:root=true
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ThingSpec `json:"spec,omitempty"`
}
