// Package v1 is the twin of test/fixtures/manifests/oracle/k8stypes: Kubernetes types used by a
// Kind's fields, with and without markers of the field's own.
// +groupName=k8stypes.oracle.kubeforge.io
package v1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

type ThingSpec struct {
	// Pods to run.
	// +kubebuilder:validation:XValidation:rule="has(self.spec)",message="a pod spec"
	Template corev1.PodTemplateSpec `json:"template"`

	// Metadata of something the Kind makes.
	Meta metav1.ObjectMeta `json:"meta,omitempty"`

	// Resources to ask for.
	Resources *corev1.ResourceRequirements `json:"resources,omitempty"`

	// A port by number or name.
	Port intstr.IntOrString `json:"port,omitempty"`

	// A bounded port by number or name.
	// +kubebuilder:validation:XValidation:rule="type(self) == string || self <= 65535",message="a port"
	BoundedPort intstr.IntOrString `json:"boundedPort,omitempty"`

	// Ports by number or name.
	Ports []intstr.IntOrString `json:"ports,omitempty"`

	// An amount.
	Amount resource.Quantity `json:"amount,omitempty"`

	// An amount with a rule.
	// +kubebuilder:validation:XValidation:rule="quantity(self).isInteger()",message="whole"
	WholeAmount resource.Quantity `json:"wholeAmount,omitempty"`

	// Amounts by name.
	Amounts corev1.ResourceList `json:"amounts,omitempty"`

	// Amounts by name, as a plain map.
	AmountMap map[string]resource.Quantity `json:"amountMap,omitempty"`

	// When it started.
	Started metav1.Time `json:"started,omitempty"`

	// When it started, precisely.
	StartedMicro metav1.MicroTime `json:"startedMicro,omitempty"`

	// How long it may take.
	Timeout metav1.Duration `json:"timeout,omitempty"`

	// Which pods.
	Selector *metav1.LabelSelector `json:"selector,omitempty"`

	// Who it refers to.
	// +kubebuilder:validation:XValidation:rule="self.name != ''",message="named"
	Ref corev1.LocalObjectReference `json:"ref,omitempty"`
}

type ThingStatus struct {
	// Conditions of the thing.
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=8
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +kubebuilder:object:root=true
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ThingSpec   `json:"spec,omitempty"`
	Status ThingStatus `json:"status,omitempty"`
}
