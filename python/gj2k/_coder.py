"""gj2k.Coder: a device held open across many reads and writes (a
gj2k_gpu_context), e.g.
    with gj2k.Coder(device="gpu") as coder:
        images = coder.decode_many(paths)
Each call releases the GIL while the library codes. Several Coders coding at
once on one GPU (one a thread) may take ranks 0, 1, 2, ...: their work runs
at different stream priorities, so that equal images do not all end, and
leave the GPU waiting, at once (gj2k_gpu_context_create_ranked)."""
import ctypes
import threading

from . import _library as L
from ._coding import _device, read, write
from ._errors import InvalidArgumentError, check


class Coder:
    def __init__(self, device="auto", gpu=0, threads=0, rank=0):
        _device(device)  # refused here, before anything opens
        if not isinstance(rank, int) or isinstance(rank, bool) or not 0 <= rank < 2**32:
            raise InvalidArgumentError("rank %r: expected an integer from 0" % (rank,))
        self.device, self.threads = device, threads
        self._context = None
        self._closed = False
        self._lock = threading.Lock()  # a context serves one call at a time
        if device != "cpu":
            context = ctypes.c_void_p()
            error = L.gj2k_error()
            status = L.lib.gj2k_gpu_context_create_ranked(gpu, rank, ctypes.byref(context),
                                                          ctypes.byref(error))
            if status == 0:
                self._context = context
            elif device == "gpu":
                check(status, error)
            # auto without a usable GPU: the CPU

    @property
    def on_gpu(self):
        """Whether a GPU is held open."""
        return self._context is not None

    def _options(self):
        if self._closed:
            raise InvalidArgumentError("the Coder is closed")
        return dict(device=self.device, threads=self.threads, gpu_context=self._context)

    def read(self, source, **options):
        with self._lock:
            return read(source, **options, **self._options())

    def write(self, path, array, **options):
        with self._lock:
            return write(path, array, **options, **self._options())

    def decode_many(self, sources, **options):
        """gj2k.read of each source (paths or bytes), in order: a list of arrays."""
        return [self.read(source, **options) for source in sources]

    def encode_many(self, arrays, **options):
        """gj2k.write(None, array) of each array: a list of bytes."""
        return [self.write(None, array, **options) for array in arrays]

    def close(self):
        if self._context is not None:
            with self._lock:
                L.lib.gj2k_gpu_context_destroy(self._context)
                self._context = None
        self._closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, "_context", None) is not None:
            L.lib.gj2k_gpu_context_destroy(self._context)
