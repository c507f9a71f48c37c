// Package v1 is the twin of test/fixtures/manifests/oracle/k8sjobs: Kubernetes types whose Go
// markers vary across minors (+k8s:immutable, +k8s:enum, +k8s:listType), embedded in a Kind.
// +groupName=k8sjobs.oracle.kubeforge.io
package v1

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type BatchSpec struct {
	// The Job to run, as a CronJob holds it.
	JobTemplate batchv1.JobTemplateSpec           `json:"jobTemplate"`
	Claim       *corev1.PersistentVolumeClaimSpec `json:"claim,omitempty"`
	Service     *corev1.ServiceSpec               `json:"service,omitempty"`
}

type BatchStatus struct {
	// The status of the last pod.
	LastPod *corev1.PodStatus `json:"lastPod,omitempty"`
}

// Batch embeds Kubernetes types whose Go markers vary across minors (+k8s:immutable, +k8s:enum, +k8s:listType).
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type Batch struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   BatchSpec    `json:"spec"`
	Status *BatchStatus `json:"status,omitempty"`
}
