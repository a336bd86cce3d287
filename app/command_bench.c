/* placeholder */
typedef int placeholder_command_bench;
