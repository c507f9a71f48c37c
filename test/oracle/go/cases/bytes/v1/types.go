// Package v1 is the twin of test/fixtures/manifests/oracle/bytes: where controller-gen's bytes
// follow a rule of their own rather than the source's order or values (required sorted,
// zero-valued printer-column fields left out, Go's int, a float64 that Type=integer makes an integer).
// +groupName=bytes.oracle.kubeforge.io
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Base is embedded (a base class; Go: an inline struct).
type Base struct {
	ZBase string `json:"zBase"`
	ABase string `json:"aBase"`
}

// Member is a member of an intersection (Go: an inline struct).
type Member struct {
	YMember string `json:"yMember"`
	BMember string `json:"bMember"`
}

// Nested is declared out of order.
type Nested struct {
	Zeta     string `json:"zeta"`
	Optional string `json:"optional,omitempty"`
	Alpha    int32  `json:"alpha"`
	Mid      string `json:"Mid"`
	AdashB   string `json:"a-b"`
	AunderB  string `json:"a_b"`
	Script   string `json:"𝒜"`
	Wide     string `json:"Ａ"`
	// +required
	Explicit string `json:"explicit,omitempty"`
}

type Own struct {
	ZOwn string `json:"zOwn"`
	MOwn string `json:"mOwn"`
}

type Joined struct {
	Member `json:",inline"`
	Own    `json:",inline"`
}

// A count made an integer by its marker.
// +kubebuilder:validation:Type=integer
type Count float64

// Counts are Go ints, or numbers that @Type makes integers.
type Counts struct {
	Plain  int   `json:"plain,omitempty"`
	Plains []int `json:"plains,omitempty"`
	// +kubebuilder:validation:Type=integer
	Typed float64 `json:"typed,omitempty"`
	// +kubebuilder:validation:Type=integer
	// +nullable
	TypedNullable *float64 `json:"typedNullable,omitempty"`
	// +kubebuilder:validation:items:Type=integer
	TypedItems []float64 `json:"typedItems,omitempty"`
	Alias      Count     `json:"alias,omitempty"`
	// Interface-style members take the marker as a JSDoc tag.
	Tagged Tagged `json:"tagged,omitempty"`
}

type Tagged struct {
	// +kubebuilder:validation:Type=integer
	N float64 `json:"n,omitempty"`
}

type ThingSpec struct {
	Counts *Counts `json:"counts,omitempty"`
	Base   `json:",inline"`
	Zebra  string   `json:"zebra"`
	Nested Nested   `json:"nested"`
	Items  []Nested `json:"items"`
	Joined Joined   `json:"joined"`
	Apple  string   `json:"apple"`
}

// +kubebuilder:object:root=true
// +kubebuilder:printcolumn:name="Data",type=string,JSONPath=`.data`
// +kubebuilder:printcolumn:name="Zero",type=string,JSONPath=`.spec.zebra`,priority=0,description="",format=""
// +kubebuilder:printcolumn:name="Wide",type=integer,JSONPath=`.spec.nested.alpha`,priority=1,description="the alpha",format=int32
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ThingSpec `json:"spec"`
	Data   string    `json:"data"`
	Status string    `json:"status,omitempty"`
}
