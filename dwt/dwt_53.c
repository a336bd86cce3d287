/* placeholder: being written */
typedef int placeholder_dwt_53;
