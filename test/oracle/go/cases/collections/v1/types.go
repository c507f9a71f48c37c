// Package v1 is the twin of test/fixtures/manifests/oracle/collections: maps of lists, lists of
// maps, and deeper nestings, with markers at each level a marker can reach.
// +groupName=collections.oracle.kubeforge.io
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Item is an object in a collection.
type Item struct {
	Name  string `json:"name"`
	Value int32  `json:"value,omitempty"`
}

// Tags is a list of tags.
// +kubebuilder:validation:MaxItems=8
// +listType=set
type Tags []string

// Env is a map of strings.
// +kubebuilder:validation:MaxProperties=16
type Env map[string]string

type ThingSpec struct {
	// A map of lists of strings.
	// +kubebuilder:validation:MaxProperties=4
	MapOfLists map[string][]string `json:"mapOfLists,omitempty"`

	// A list of maps of strings.
	// +kubebuilder:validation:MaxItems=3
	// +kubebuilder:validation:items:MaxProperties=2
	// +kubebuilder:validation:items:MinProperties=1
	ListOfMaps []map[string]string `json:"listOfMaps,omitempty"`

	// A map of lists of objects.
	MapOfObjectLists map[string][]Item `json:"mapOfObjectLists,omitempty"`

	// A list of maps of objects.
	// +listType=atomic
	ListOfObjectMaps []map[string]Item `json:"listOfObjectMaps,omitempty"`

	// A map of maps.
	// +mapType=atomic
	MapOfMaps map[string]map[string]int32 `json:"mapOfMaps,omitempty"`

	// A list of lists.
	// +kubebuilder:validation:items:MaxItems=2
	// +kubebuilder:validation:items:MinItems=1
	ListOfLists [][]string `json:"listOfLists,omitempty"`

	// A list of lists of maps of lists.
	Deep [][]map[string][]int64 `json:"deep,omitempty"`

	// A map of named lists.
	MapOfTags map[string]Tags `json:"mapOfTags,omitempty"`

	// A list of named maps.
	ListOfEnv []Env `json:"listOfEnv,omitempty"`

	// A map of lists of bytes.
	MapOfBytes map[string][]byte `json:"mapOfBytes,omitempty"`

	// A list of bytes.
	// +kubebuilder:validation:MaxLength=64
	Bytes []byte `json:"bytes,omitempty"`

	// A map list.
	// +listType=map
	// +listMapKey=name
	Items []Item `json:"items,omitempty"`

	// A map of map lists.
	MapOfItemSets map[string]ItemSet `json:"mapOfItemSets,omitempty"`

	// A map of booleans.
	// +kubebuilder:validation:MinProperties=1
	Flags map[string]bool `json:"flags,omitempty"`

	// A map of nullable strings.
	MaybeStrings map[string]*string `json:"maybeStrings,omitempty"`
}

// ItemSet is a map list of items.
// +listType=map
// +listMapKey=name
type ItemSet []Item

// +kubebuilder:object:root=true
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ThingSpec `json:"spec,omitempty"`
}
