// Package v1 is the twin of test/fixtures/manifests/conformance/plural.example.com_testquotas.
// +groupName=plural.example.com
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=testquotas
type TestQuota struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Test string `json:"test,omitempty"`
}
