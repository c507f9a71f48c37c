// Package v1 is the twin of test/fixtures/manifests/oracle/enums: string and integer enums,
// written as markers and (in TypeScript) as enums and unions of literals.
// +groupName=enums.oracle.kubeforge.io
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Color is a TypeScript string enum; in Go, constants of a k8s:enum type.
// +k8s:enum
type Color string

const (
	Red   Color = "red"
	Green Color = "green"
	Blue  Color = "blue"
)

// Level is a TypeScript numeric enum.
// +kubebuilder:validation:Enum=1;2;3
type Level int

// Speed is a union of string literals.
// +kubebuilder:validation:Enum=Fast;Slow
type Speed string

// Size is a union of integer literals.
// +kubebuilder:validation:Enum=10;20;40
type Size int

// Ratio is a union of number literals.
// +kubebuilder:validation:Enum=0.5;1.5
type Ratio float64

// Letter is a string with an enum marker.
// +kubebuilder:validation:Enum=a;b;c
// +kubebuilder:validation:MaxLength=1
type Letter string

// Replicas is an int32 with an enum marker.
// +kubebuilder:validation:Enum=1;3;5
type Replicas int32

// Tier is a union of literals through aliases.
// +kubebuilder:validation:Enum=gold;silver;bronze
type Tier string

type ThingSpec struct {
	Color Color `json:"color,omitempty"`

	Level Level `json:"level,omitempty"`

	Speed Speed `json:"speed,omitempty"`

	Size Size `json:"size,omitempty"`

	Ratio Ratio `json:"ratio,omitempty"`

	Letter Letter `json:"letter,omitempty"`

	Replicas Replicas `json:"replicas,omitempty"`

	Tier Tier `json:"tier,omitempty"`

	// An inline union on the field.
	// +kubebuilder:validation:Enum=on;off
	Switch string `json:"switch,omitempty"`

	// An enum marker on a string field.
	// +kubebuilder:validation:Enum=x;y
	Marked string `json:"marked,omitempty"`

	// An enum marker on an integer field.
	// +kubebuilder:validation:Enum=0;1
	Bit int32 `json:"bit,omitempty"`

	// A list of enum values.
	Colors []Color `json:"colors,omitempty"`

	// Items markers for the enum.
	// +kubebuilder:validation:items:Enum=p;q
	Items []string `json:"items,omitempty"`

	// A map of enum values.
	Speeds map[string]Speed `json:"speeds,omitempty"`

	// A nullable enum.
	// +nullable
	Maybe *Speed `json:"maybe,omitempty"`

	// A default from the enum.
	// +kubebuilder:default=Slow
	Defaulted Speed `json:"defaulted,omitempty"`

	// An enum with one member.
	// +kubebuilder:validation:Enum=only
	Single string `json:"single,omitempty"`
}

// +kubebuilder:object:root=true
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ThingSpec `json:"spec,omitempty"`
}
