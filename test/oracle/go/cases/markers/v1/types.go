// Package v1 is the twin of test/fixtures/manifests/oracle/markers: every field-level and
// type-level marker of kubeforge's marker reference that controller-gen has, one use each.
// +groupName=markers.oracle.kubeforge.io
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Sub is a small object.
type Sub struct {
	Name string `json:"name"`
	Size int32  `json:"size,omitempty"`
}

// Fields has one field per field-level marker.
type Fields struct {
	// +kubebuilder:validation:Maximum=10
	Maximum int32 `json:"maximum,omitempty"`
	// +kubebuilder:validation:Minimum=-5
	Minimum int32 `json:"minimum,omitempty"`
	// +kubebuilder:validation:Maximum=10
	// +kubebuilder:validation:ExclusiveMaximum=true
	ExclusiveMaximum int32 `json:"exclusiveMaximum,omitempty"`
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:ExclusiveMinimum=true
	ExclusiveMinimum int64 `json:"exclusiveMinimum,omitempty"`
	// +kubebuilder:validation:MultipleOf=3
	MultipleOf int32 `json:"multipleOf,omitempty"`
	// +kubebuilder:validation:MinLength=2
	MinLength string `json:"minLength,omitempty"`
	// +kubebuilder:validation:MaxLength=20
	MaxLength string `json:"maxLength,omitempty"`
	// +kubebuilder:validation:Pattern=`^[a-z]+(-[a-z]+)*$`
	Pattern string `json:"pattern,omitempty"`
	// +kubebuilder:validation:MinItems=1
	MinItems []string `json:"minItems,omitempty"`
	// +kubebuilder:validation:MaxItems=4
	MaxItems []string `json:"maxItems,omitempty"`
	// +kubebuilder:validation:MinProperties=1
	MinProperties map[string]string `json:"minProperties,omitempty"`
	// +kubebuilder:validation:MaxProperties=3
	MaxProperties map[string]string `json:"maxProperties,omitempty"`
	// +kubebuilder:validation:Enum=a;"b c";d
	Enum string `json:"enum,omitempty"`
	// +kubebuilder:validation:Enum=1;2.5;-3
	NumberEnum float64 `json:"numberEnum,omitempty"`
	// +kubebuilder:validation:Format=email
	Format string `json:"format,omitempty"`
	// +kubebuilder:validation:Type=string
	Type int32 `json:"type,omitempty"`
	// +kubebuilder:validation:XValidation:rule="self.size() > 1",message="long enough"
	// +kubebuilder:validation:XValidation:rule="!oldSelf.hasValue() || oldSelf.value() == self",messageExpression="'cannot become ' + self",reason=FieldValueForbidden,optionalOldSelf=true
	// +kubebuilder:validation:MaxLength=64
	XValidation string `json:"xValidation,omitempty"`
	// +kubebuilder:validation:XValidation:rule="self.name != ''",message="named",reason=FieldValueRequired,fieldPath=".name"
	XValidationFieldPath Sub `json:"xValidationFieldPath,omitempty"`
	// +kubebuilder:pruning:PreserveUnknownFields
	PreserveUnknownFields *runtime.RawExtension `json:"preserveUnknownFields,omitempty"`
	// +kubebuilder:pruning:PreserveUnknownFields
	PreserveUnknownObject Sub `json:"preserveUnknownObject,omitempty"`
	// +kubebuilder:validation:EmbeddedResource
	// +kubebuilder:pruning:PreserveUnknownFields
	EmbeddedResource runtime.RawExtension `json:"embeddedResource,omitempty"`
	// +kubebuilder:validation:XIntOrString
	IntOrString string `json:"intOrString,omitempty"`
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Type=object
	Schemaless runtime.RawExtension `json:"schemaless,omitempty"`
	// +kubebuilder:title="A title"
	Title string `json:"title,omitempty"`
	// +kubebuilder:externalDocs:url="https://example.com/docs",description="More about it"
	ExternalDocs string `json:"externalDocs,omitempty"`
	// +kubebuilder:default=3
	Default int32 `json:"default,omitempty"`
	// +kubebuilder:default={name: "x", size: 2}
	DefaultObject Sub `json:"defaultObject,omitempty"`
	// +kubebuilder:default={"a","b"}
	DefaultList []string `json:"defaultList,omitempty"`
	// +kubebuilder:example=4
	Example int32 `json:"example,omitempty"`
	// +kubebuilder:example={name: "y"}
	ExampleObject Sub `json:"exampleObject,omitempty"`
	// +nullable
	Nullable *string `json:"nullable,omitempty"`
	// +optional
	Optional string `json:"optional"`
	// +required
	Required string `json:"required,omitempty"`
	// +listType=set
	ListTypeSet []string `json:"listTypeSet,omitempty"`
	// +listType=atomic
	ListTypeAtomic []Sub `json:"listTypeAtomic,omitempty"`
	// +listType=map
	// +listMapKey=name
	ListMapKey []Sub `json:"listMapKey,omitempty"`
	// +listType=map
	// +listMapKey=name
	// +listMapKey=size
	ListMapKeys []Keyed `json:"listMapKeys,omitempty"`
	// +mapType=atomic
	MapType map[string]string `json:"mapType,omitempty"`
	// +mapType=granular
	MapTypeGranular map[string]string `json:"mapTypeGranular,omitempty"`
	// +structType=atomic
	StructType Sub `json:"structType,omitempty"`
	// +k8s:immutable
	Immutable string `json:"immutable,omitempty"`
}

// Keyed has two keys.
type Keyed struct {
	Name string `json:"name"`
	Size int32  `json:"size"`
}

// ItemFields has one field per items marker.
type ItemFields struct {
	// +kubebuilder:validation:items:Maximum=10
	Maximum []int32 `json:"maximum,omitempty"`
	// +kubebuilder:validation:items:Minimum=1
	Minimum []int32 `json:"minimum,omitempty"`
	// +kubebuilder:validation:items:Maximum=10
	// +kubebuilder:validation:items:ExclusiveMaximum=true
	ExclusiveMaximum []int32 `json:"exclusiveMaximum,omitempty"`
	// +kubebuilder:validation:items:Minimum=1
	// +kubebuilder:validation:items:ExclusiveMinimum=true
	ExclusiveMinimum []int32 `json:"exclusiveMinimum,omitempty"`
	// +kubebuilder:validation:items:MultipleOf=2
	MultipleOf []int64 `json:"multipleOf,omitempty"`
	// +kubebuilder:validation:items:MinLength=1
	MinLength []string `json:"minLength,omitempty"`
	// +kubebuilder:validation:items:MaxLength=8
	MaxLength []string `json:"maxLength,omitempty"`
	// +kubebuilder:validation:items:Pattern=`^v[0-9]+$`
	Pattern []string `json:"pattern,omitempty"`
	// +kubebuilder:validation:items:MinItems=1
	MinItems [][]string `json:"minItems,omitempty"`
	// +kubebuilder:validation:items:MaxItems=2
	MaxItems [][]string `json:"maxItems,omitempty"`
	// +kubebuilder:validation:items:MinProperties=1
	MinProperties []map[string]string `json:"minProperties,omitempty"`
	// +kubebuilder:validation:items:MaxProperties=2
	MaxProperties []map[string]string `json:"maxProperties,omitempty"`
	// +kubebuilder:validation:items:Enum=x;y
	Enum []string `json:"enum,omitempty"`
	// +kubebuilder:validation:items:Format=uri
	Format []string `json:"format,omitempty"`
	// +kubebuilder:validation:items:Type=string
	Type []int32 `json:"type,omitempty"`
	// +kubebuilder:validation:items:XValidation:rule="self.size() > 0",message="not empty"
	// +kubebuilder:validation:items:MaxLength=64
	// +kubebuilder:validation:MaxItems=16
	XValidation []string `json:"xValidation,omitempty"`
	// +kubebuilder:validation:items:XIntOrString
	IntOrString []string `json:"intOrString,omitempty"`
	// +kubebuilder:validation:items:XPreserveUnknownFields
	PreserveUnknownFields []Sub `json:"preserveUnknownFields,omitempty"`
	// +kubebuilder:validation:items:XEmbeddedResource
	// +kubebuilder:validation:items:XPreserveUnknownFields
	EmbeddedResource []runtime.RawExtension `json:"embeddedResource,omitempty"`
}

// Count has every numeric type-level marker.
// +kubebuilder:validation:Minimum=0
// +kubebuilder:validation:ExclusiveMinimum=true
// +kubebuilder:validation:Maximum=100
// +kubebuilder:validation:ExclusiveMaximum=true
// +kubebuilder:validation:MultipleOf=5
type Count int32

// Text has the textual type-level markers.
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=12
// +kubebuilder:validation:Pattern=`^[a-z]`
// +kubebuilder:validation:Format=hostname
// +kubebuilder:title="Text"
// +kubebuilder:externalDocs:url="https://example.com/text"
// +kubebuilder:validation:XValidation:rule="self != 'root'",message="not root"
type Text string

// Choice has an enum on the type.
// +kubebuilder:validation:Enum=one;two
type Choice string

// Port is an int or a string.
// +kubebuilder:validation:XIntOrString
type Port string

// Opaque is a struct written as a string.
// +kubebuilder:validation:Type=string
// +kubebuilder:validation:Format=byte
type Opaque struct {
	Data string `json:"data,omitempty"`
}

// List has the list type-level markers.
// +kubebuilder:validation:MinItems=1
// +kubebuilder:validation:MaxItems=5
// +listType=set
// +kubebuilder:validation:items:MaxLength=3
// +kubebuilder:validation:items:Pattern=`^[a-z]+$`
type List []string

// Bounded has the numeric items markers.
// +kubebuilder:validation:items:Maximum=10
// +kubebuilder:validation:items:ExclusiveMaximum=true
// +kubebuilder:validation:items:Minimum=1
// +kubebuilder:validation:items:ExclusiveMinimum=true
// +kubebuilder:validation:items:MultipleOf=1
type Bounded []int32

// Words has the textual items markers.
// +kubebuilder:validation:items:MinLength=1
// +kubebuilder:validation:items:MaxLength=10
// +kubebuilder:validation:items:Pattern=`^[a-z]+$`
// +kubebuilder:validation:items:Enum=alpha;beta
// +kubebuilder:validation:items:Format=hostname
// +kubebuilder:validation:items:XValidation:rule="self != 'gamma'",message="no gamma"
type Words []string

// Table has the list items markers.
// +kubebuilder:validation:items:MinItems=1
// +kubebuilder:validation:items:MaxItems=3
type Table [][]string

// Dicts has the map items markers.
// +kubebuilder:validation:items:MinProperties=1
// +kubebuilder:validation:items:MaxProperties=3
type Dicts []map[string]string

// Codes are numbers written as strings.
// +kubebuilder:validation:items:Type=string
type Codes []int32

// Ports are ints or strings.
// +kubebuilder:validation:items:XIntOrString
type Ports []string

// Loose keeps the items' unknown fields.
// +kubebuilder:validation:items:XPreserveUnknownFields
type Loose []Sub

// Objects are whole Kubernetes objects.
// +kubebuilder:validation:items:XEmbeddedResource
// +kubebuilder:validation:items:XPreserveUnknownFields
type Objects []runtime.RawExtension

// SubList is a map list by type.
// +listType=map
// +listMapKey=name
type SubList []Sub

// Dict has the map type-level markers.
// +kubebuilder:validation:MinProperties=1
// +kubebuilder:validation:MaxProperties=8
// +mapType=atomic
type Dict map[string]string

// OneOf has the one-of markers and a struct type.
// +kubebuilder:validation:XValidation:rule="!has(self.a) || self.a != 'z'",message="no z"
// +kubebuilder:validation:AtMostOneOf=a;b
// +kubebuilder:validation:ExactlyOneOf=b;c
// +kubebuilder:validation:AtLeastOneOf=a;c
// +kubebuilder:validation:MinProperties=1
// +kubebuilder:validation:MaxProperties=2
// +structType=atomic
type OneOf struct {
	A string `json:"a,omitempty"`
	B string `json:"b,omitempty"`
	C string `json:"c,omitempty"`
}

// Free keeps unknown fields.
// +kubebuilder:pruning:PreserveUnknownFields
type Free struct {
	Known string `json:"known,omitempty"`
}

// Whole is a whole Kubernetes object.
// +kubebuilder:validation:XEmbeddedResource
// +kubebuilder:pruning:PreserveUnknownFields
type Whole struct {
	Kind string `json:"kind,omitempty"`
}

// Types has one field per type carrying markers.
type Types struct {
	Count  Count   `json:"count,omitempty"`
	Text   Text    `json:"text,omitempty"`
	Choice Choice  `json:"choice,omitempty"`
	Port   Port    `json:"port,omitempty"`
	Opaque Opaque  `json:"opaque,omitempty"`
	List   List    `json:"list,omitempty"`
	Subs   SubList `json:"subs,omitempty"`
	Dict   Dict    `json:"dict,omitempty"`
	OneOf  OneOf   `json:"oneOf,omitempty"`
	Free   Free    `json:"free,omitempty"`
	Whole  Whole   `json:"whole,omitempty"`

	Bounded Bounded `json:"bounded,omitempty"`
	Words   Words   `json:"words,omitempty"`
	Table   Table   `json:"table,omitempty"`
	Dicts   Dicts   `json:"dicts,omitempty"`
	Codes   Codes   `json:"codes,omitempty"`
	Ports   Ports   `json:"ports,omitempty"`
	Loose   Loose   `json:"loose,omitempty"`
	Objects Objects `json:"objects,omitempty"`
}

type ThingSpec struct {
	Fields Fields     `json:"fields,omitempty"`
	Items  ItemFields `json:"items,omitempty"`
	Types  Types      `json:"types,omitempty"`
}

// Thing has the one-of markers on the Kind.
// +kubebuilder:object:root=true
// +kubebuilder:validation:ExactlyOneOf=spec;other
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec  ThingSpec `json:"spec,omitempty"`
	Other string    `json:"other,omitempty"`
}
