/* placeholder: being written */
typedef int placeholder_quantization;
