// Package v1 is the twin of test/fixtures/manifests/oracle/uniqueitems: uniqueItems, which
// controller-gen writes and the API server refuses (kubeforge refuses to write the CRD).
// +groupName=uniqueitems.oracle.kubeforge.io
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Names are distinct names.
// +kubebuilder:validation:UniqueItems=true
type Names []string

// Table has lists of distinct names.
// +kubebuilder:validation:items:UniqueItems=true
type Table [][]string

type ThingSpec struct {
	// +kubebuilder:validation:UniqueItems=true
	Field []string `json:"field,omitempty"`

	// +kubebuilder:validation:items:UniqueItems=true
	Items [][]string `json:"items,omitempty"`

	Type Names `json:"type,omitempty"`

	TypeItems Table `json:"typeItems,omitempty"`
}

// +kubebuilder:object:root=true
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ThingSpec `json:"spec,omitempty"`
}
