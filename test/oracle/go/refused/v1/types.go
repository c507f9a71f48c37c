// Package v1 is the twin of test/fixtures/manifests/oracle-refused: markers controller-gen
// refuses where kubeforge writes a schema the API server takes. controller-gen checks a marker
// against the schema it has at hand, and a field of a named struct type (or of IntOrString,
// Quantity) is a reference without a type there, and one of a named list type a reference
// without items; kubeforge checks it against the type's schema. And floats need
// crd:allowDangerousTypes=true. (Since v0.23 a named list or map type's reference has its type,
// so MinItems or MaxProperties on such a field apply: test/oracle/go/cases/namedcollections.)
// +groupName=refused.oracle.kubeforge.io
package v1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Names is a list of names.
type Names []string

// Pair is an object.
type Pair struct {
	A string `json:"a,omitempty"`
	B string `json:"b,omitempty"`
}

type ThingSpec struct {
	// +kubebuilder:validation:items:MaxLength=8
	ShortNames Names `json:"shortNames,omitempty"`

	// +kubebuilder:validation:MinProperties=1
	Pair Pair `json:"pair,omitempty"`

	// +kubebuilder:validation:Maximum=65535
	Port intstr.IntOrString `json:"port,omitempty"`

	// +kubebuilder:validation:Pattern=`^[0-9]+$`
	Amount resource.Quantity `json:"amount,omitempty"`

	Ratio float64 `json:"ratio,omitempty"`
}

// +kubebuilder:object:root=true
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ThingSpec `json:"spec,omitempty"`
}
