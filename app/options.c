/* placeholder */
typedef int placeholder_options;
