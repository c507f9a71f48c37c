// Package v1beta2 is the twin of test/fixtures/manifests/conformance/testdata.kubebuilder.io_versionedresources.
// +groupName=testdata.kubebuilder.io
package v1beta2

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type InnerStruct struct {
	Foo string `json:"foo,omitempty"`
}

type OuterStruct struct {
	// +structType=atomic
	Struct InnerStruct `json:"struct,omitempty"`
}

type VersionedResourceSpec struct {
	Struct OuterStruct `json:"struct,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
type VersionedResource struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec VersionedResourceSpec `json:"spec"`
}
