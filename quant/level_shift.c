/* placeholder: being written */
typedef int placeholder_level_shift;
