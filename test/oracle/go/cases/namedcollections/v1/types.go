// Package v1 is the twin of test/fixtures/manifests/oracle/namedcollections: fields of named list
// and map types with markers of their own. controller-gen refused such markers until v0.22 (the
// field was a reference without a type when the marker was checked); v0.23 gives the reference
// its type, so they apply, and a field's listType / listMapKey / mapType win over the type's.
// (items: markers on such a field are still refused: test/oracle/go/refused.)
// +groupName=namedcollections.oracle.kubeforge.io
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Names is a list of names.
type Names []string

// Labels is a map of labels.
type Labels map[string]string

// Tags is a set of tags.
// +listType=set
type Tags []string

// Port is a named port.
type Port struct {
	Name   string `json:"name"`
	Number int32  `json:"number,omitempty"`
}

// Ports is a list of ports.
// +listType=atomic
type Ports []Port

// Settings is a map that is replaced whole.
// +mapType=atomic
type Settings map[string]string

type ThingSpec struct {
	// +kubebuilder:validation:MinItems=1
	Names Names `json:"names,omitempty"`

	// +kubebuilder:validation:MaxItems=3
	// +listType=set
	UniqueNames Names `json:"uniqueNames,omitempty"`

	// +kubebuilder:validation:MaxProperties=4
	Labels Labels `json:"labels,omitempty"`

	// +mapType=atomic
	AtomicLabels Labels `json:"atomicLabels,omitempty"`

	Tags Tags `json:"tags,omitempty"`

	// +listType=atomic
	AtomicTags Tags `json:"atomicTags,omitempty"`

	// +listType=map
	// +listMapKey=name
	Ports Ports `json:"ports,omitempty"`

	// +mapType=granular
	Settings Settings `json:"settings,omitempty"`
}

// +kubebuilder:object:root=true
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ThingSpec `json:"spec,omitempty"`
}
