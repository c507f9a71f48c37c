// Package v1beta1 is the twin of test/fixtures/manifests/conformance/testdata.kubebuilder.io_jobs.
// +groupName=testdata.kubebuilder.io
package v1beta1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// JobSpec is the spec for the jobs API.
type JobSpec struct {
	// Count is the number of times a job may be executed.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=10
	Count int32 `json:"count"`

	// CronJob is the spec for the related CrongJob.
	CrongJob CronJobSpec `json:"crongJob"`

	// FriendlyName is the friendly name for the job.
	// +kubebuilder:validation:MinLength=5
	FriendlyName string `json:"friendlyName"`
}

type CronJobSpec struct {
	// +kubebuilder:validation:Minimum=-2
	// +kubebuilder:validation:Maximum=2
	// +kubebuilder:validation:MultipleOf=2
	Int32WithValidations int32 `json:"int32WithValidations"`

	// This tests that markers that are allowed on both fields and types are applied to fields
	// +kubebuilder:validation:MinLength=4
	TwoOfAKindPart0 TwoOfAKindPart0 `json:"twoOfAKindPart0"`
}

type TwoOfAKindPart0 string

// Job is the Schema for the jobs API
// +kubebuilder:object:root=true
type Job struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec JobSpec `json:"spec"`
}
