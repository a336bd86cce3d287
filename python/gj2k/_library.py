"""libgj2k through ctypes: the shared library shipped in this package, the
structs of gj2k.h that the binding fills or reads, and the functions'
signatures. tests/test_struct_layout.py checks every field mirrored here
against the C compiler's offsetof and sizeof."""
import ctypes
import os
from ctypes import (POINTER, c_bool, c_char, c_char_p, c_double, c_int, c_int32, c_int64,
                    c_size_t, c_uint, c_uint8, c_uint16, c_uint32, c_uint64, c_void_p)

HERE = os.path.dirname(os.path.abspath(__file__))
LIBRARY_PATH = os.environ.get("GJ2K_LIBRARY", os.path.join(HERE, "libgj2k.so"))
PROGRAM_PATH = os.environ.get("GJ2K_PROGRAM", os.path.join(HERE, "bin", "gj2k"))

c_enum = c_int  # gj2k's enums are all int-sized

# gj2k_warning_fn: void (*)(void *user, const char *message)
WARNING_FN = ctypes.CFUNCTYPE(None, c_void_p, c_char_p)


class gj2k_error(ctypes.Structure):
    _fields_ = [("status", c_enum), ("message", c_char * 256)]


class gj2k_component(ctypes.Structure):
    _fields_ = [("dx", c_uint32), ("dy", c_uint32), ("x0", c_uint32), ("y0", c_uint32),
                ("width", c_uint32), ("height", c_uint32), ("precision", c_uint32),
                ("is_signed", c_bool), ("role", c_enum),
                ("samples", POINTER(c_int32)), ("wide_samples", POINTER(c_int64))]


class gj2k_image(ctypes.Structure):
    _fields_ = [("x0", c_uint32), ("y0", c_uint32), ("x1", c_uint32), ("y1", c_uint32),
                ("num_components", c_uint32), ("components", POINTER(gj2k_component)),
                ("color_space", c_enum),
                ("icc_profile", POINTER(c_uint8)), ("icc_profile_size", c_size_t),
                ("resolution_x", c_double), ("resolution_y", c_double),
                ("xmp", POINTER(c_uint8)), ("xmp_size", c_size_t),
                ("exif", POINTER(c_uint8)), ("exif_size", c_size_t),
                ("iptc", POINTER(c_uint8)), ("iptc_size", c_size_t)]


class gj2k_component_info(ctypes.Structure):
    _fields_ = [("dx", c_uint32), ("dy", c_uint32), ("precision", c_uint32),
                ("is_signed", c_bool)]


class gj2k_decode_options(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("reduce", c_uint), ("max_layers", c_uint),
                ("use_region", c_bool), ("region_x0", c_uint32), ("region_y0", c_uint32),
                ("region_x1", c_uint32), ("region_y1", c_uint32),
                ("use_tile", c_bool), ("tile", c_uint32),
                ("components", POINTER(c_uint32)), ("num_components", c_uint32),
                ("threads", c_uint), ("raw_components", c_bool), ("guess_sycc", c_bool),
                ("upsample", c_bool), ("force_rgb", c_bool), ("precision", c_uint),
                ("max_samples", c_uint64), ("max_memory", c_uint64),
                ("allow_partial", c_bool), ("strip_rows", c_uint32),
                ("device", c_enum), ("gpu", c_uint), ("gpu_context", c_void_p),
                ("progress", c_void_p), ("progress_user", c_void_p),
                ("warning", WARNING_FN), ("warning_user", c_void_p),
                ("report", c_void_p)]


MAX_RESOLUTIONS = 33


class gj2k_encode_options(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("format", c_enum), ("irreversible", c_bool),
                ("num_resolutions", c_uint),
                ("code_block_width", c_uint32), ("code_block_height", c_uint32),
                ("num_precinct_sizes", c_uint),
                ("precinct_width", c_uint32 * MAX_RESOLUTIONS),
                ("precinct_height", c_uint32 * MAX_RESOLUTIONS),
                ("tile_width", c_uint32), ("tile_height", c_uint32),
                ("tile_x0", c_uint32), ("tile_y0", c_uint32),
                ("progression", c_enum), ("progression_changes", c_void_p),
                ("num_progression_changes", c_size_t), ("code_block_style", c_uint),
                ("high_throughput", c_bool), ("ht_refinement", c_bool),
                ("use_sop", c_bool), ("use_eph", c_bool), ("use_plt", c_bool),
                ("use_tlm", c_bool), ("tile_parts", c_enum), ("profile", c_enum),
                ("frame_rate", c_uint), ("imf_main_level", c_uint), ("imf_sub_level", c_uint),
                ("mct", c_enum), ("guard_bits", c_uint), ("target", c_enum),
                ("num_layers", c_uint), ("targets", POINTER(c_double)), ("comment", c_char_p),
                ("threads", c_uint), ("device", c_enum), ("gpu", c_uint),
                ("gpu_context", c_void_p), ("progress", c_void_p), ("progress_user", c_void_p),
                ("warning", WARNING_FN), ("warning_user", c_void_p),
                ("temporary", c_void_p), ("temporary_user", c_void_p)]


class gj2k_describe_options(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("style", c_enum), ("raw", c_void_p),
                ("warning", WARNING_FN), ("warning_user", c_void_p)]


# The structs mirrored, for the layout test.
MIRRORED = (gj2k_error, gj2k_component, gj2k_image, gj2k_component_info, gj2k_decode_options,
            gj2k_encode_options, gj2k_describe_options)

# Enumerations (gj2k.h).
FORMAT_J2K, FORMAT_JP2 = 8, 9
DEVICES = {"auto": 0, "cpu": 1, "gpu": 2}
TARGET_RATIO, TARGET_PSNR = 1, 2
COLOR_GRAY, COLOR_SRGB = 1, 2
DESCRIBE_JSON = 1  # GJ2K_DESCRIBE_JSON

status_t = c_enum
image_p = POINTER(gj2k_image)
error_p = POINTER(gj2k_error)


def _declare(lib):
    signatures = {
        "gj2k_version_string": (c_char_p, []),
        "gj2k_decode_file": (status_t, [c_char_p, POINTER(gj2k_decode_options),
                                        POINTER(image_p), error_p]),
        "gj2k_decode_memory": (status_t, [c_void_p, c_size_t, POINTER(gj2k_decode_options),
                                          POINTER(image_p), error_p]),
        "gj2k_image_create": (status_t, [POINTER(image_p), c_uint32, c_uint32, c_uint32,
                                         c_uint32, c_uint32, POINTER(gj2k_component_info),
                                         error_p]),
        "gj2k_image_destroy": (None, [image_p]),
        "gj2k_encode_memory": (status_t, [image_p, POINTER(gj2k_encode_options),
                                          POINTER(POINTER(c_uint8)), POINTER(c_size_t),
                                          c_void_p, error_p]),
        "gj2k_encode_file": (status_t, [image_p, c_char_p, POINTER(gj2k_encode_options),
                                        c_void_p, error_p]),
        "gj2k_describe_file": (status_t, [c_char_p, POINTER(gj2k_describe_options),
                                          POINTER(POINTER(c_char)), POINTER(c_size_t),
                                          error_p]),
        "gj2k_gpu_context_create": (status_t, [c_uint, POINTER(c_void_p), error_p]),
        "gj2k_gpu_context_create_ranked": (status_t, [c_uint, c_uint, POINTER(c_void_p),
                                                      error_p]),
        "gj2k_gpu_context_destroy": (None, [c_void_p]),
    }
    for name, (restype, argtypes) in signatures.items():
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes
    return lib


# CDLL: each call releases the GIL while the library works.
lib = _declare(ctypes.CDLL(LIBRARY_PATH))
libc = ctypes.CDLL(None)
libc.free.argtypes = [c_void_p]
libc.free.restype = None
