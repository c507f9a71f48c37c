// Package v1 is the twin of test/fixtures/manifests/golden/k8s: Kubernetes types embedded in a
// Kind, whose schemas come from the k8s.io/api version this module requires.
// +groupName=k8s.golden.kubeforge.io
package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type DeployerSpec struct {
	// Pods to run.
	Template  corev1.PodTemplateSpec       `json:"template"`
	Selector  *metav1.LabelSelector        `json:"selector,omitempty"`
	Resources *corev1.ResourceRequirements `json:"resources,omitempty"`
	Ref       *corev1.ObjectReference      `json:"ref,omitempty"`
}

type DeployerStatus struct {
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Deployer embeds Kubernetes model types.
// +kubebuilder:object:root=true
type Deployer struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   DeployerSpec    `json:"spec"`
	Status *DeployerStatus `json:"status,omitempty"`
}
