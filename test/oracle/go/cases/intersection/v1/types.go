// Package v1 is the twin of test/fixtures/manifests/oracle/intersection: two embedded structs
// (TypeScript: intersection members) that declare the same field, each with its own bounds.
// +groupName=intersection.oracle.kubeforge.io
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Short struct {
	// +kubebuilder:validation:MaxLength=3
	Name string `json:"name,omitempty"`
	// +kubebuilder:validation:Maximum=10
	// +kubebuilder:validation:Minimum=1
	Count int32 `json:"count,omitempty"`
	// +kubebuilder:validation:MaxItems=4
	Tags []string `json:"tags,omitempty"`
	// +required
	Req  string `json:"req"`
	Only string `json:"only,omitempty"`
	// Short's sub.
	Sub Inner `json:"sub,omitempty"`
}

type Inner struct {
	// +kubebuilder:validation:MaxLength=8
	X string `json:"x,omitempty"`
	// +required
	Z string `json:"z"`
}

type Inner2 struct {
	// +kubebuilder:validation:MaxLength=6
	X string `json:"x,omitempty"`
	// +required
	Y string `json:"y"`
}

type Long struct {
	// +kubebuilder:validation:MaxLength=5
	// +kubebuilder:validation:MinLength=2
	Name string `json:"name,omitempty"`
	// +kubebuilder:validation:Maximum=20
	// +kubebuilder:validation:Minimum=0
	Count int32 `json:"count,omitempty"`
	// +kubebuilder:validation:MaxItems=2
	Tags []string `json:"tags,omitempty"`
	Req  string   `json:"req,omitempty"`
	// Long's sub.
	Sub Inner2 `json:"sub,omitempty"`
}

type ThingSpec struct {
	Short `json:",inline"`
	Long  `json:",inline"`
}

// +kubebuilder:object:root=true
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ThingSpec `json:"spec,omitempty"`
}
