// Package v1 is the twin of test/fixtures/manifests/oracle/aliases: named types of named types
// (TypeScript: aliases of aliases) with markers at each level, and a field over them.
// +groupName=aliases.oracle.kubeforge.io
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Name is a DNS label.
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=63
// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
// +kubebuilder:validation:XValidation:rule="!self.startsWith('kube-')",message="name rule"
type Name string

// ShortName is a short Name.
// +kubebuilder:validation:MaxLength=15
// +kubebuilder:validation:XValidation:rule="self != 'default'",message="short name rule"
type ShortName Name

// TinyName is a very short ShortName.
// +kubebuilder:validation:MaxLength=5
// +kubebuilder:validation:MinLength=1
type TinyName ShortName

// PlainName adds nothing to Name.
type PlainName Name

// Port is a port number.
// +kubebuilder:validation:Minimum=1
// +kubebuilder:validation:Maximum=65535
type Port int32

// HighPort is a port above 1024.
// +kubebuilder:validation:Minimum=1025
type HighPort Port

// Names is a list of names.
// +kubebuilder:validation:MaxItems=10
type Names []ShortName

type ThingSpec struct {
	Name Name `json:"name,omitempty"`

	Short ShortName `json:"short,omitempty"`

	Tiny TinyName `json:"tiny,omitempty"`

	Plain PlainName `json:"plain,omitempty"`

	// A field over the alias of an alias.
	// +kubebuilder:validation:MaxLength=10
	// +kubebuilder:validation:XValidation:rule="self != 'x'",message="field rule"
	Field ShortName `json:"field,omitempty"`

	High HighPort `json:"high,omitempty"`

	Names Names `json:"names,omitempty"`
}

// +kubebuilder:object:root=true
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ThingSpec `json:"spec,omitempty"`
}
