/* placeholder: being written */
typedef int placeholder_component_transform;
