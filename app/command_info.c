/* placeholder */
typedef int placeholder_command_info;
