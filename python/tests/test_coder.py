"""gj2k.Coder: many images through one open device, and the GIL released
while the library codes."""
import os
import threading
import time

import numpy as np
import pytest

import gj2k


# tests/gpu/run.sh sets it on the GPU machine, where "no GPU" is a failure
REQUIRE_GPU = os.environ.get("GJ2K_REQUIRE_GPU") == "1"


def images(count=4):
    rng = np.random.default_rng(5)
    return [rng.integers(0, 4096, (48 + 8 * i, 40, 3)).astype(np.uint16) for i in range(count)]


def test_cpu_coder_round_trips(tmp_path):
    arrays = images()
    with gj2k.Coder(device="cpu") as coder:
        assert not coder.on_gpu
        encoded = coder.encode_many(arrays)
        paths = []
        for i, data in enumerate(encoded):
            paths.append(tmp_path / ("%d.j2k" % i))
            paths[-1].write_bytes(data)
        decoded = coder.decode_many(paths)
        assert all(np.array_equal(a, b) for a, b in zip(arrays, decoded))
        assert coder.decode_many(encoded[:1], reduce=1)[0].shape == (24, 20, 3)
    with pytest.raises(gj2k.InvalidArgumentError, match="closed"):
        coder.read(encoded[0])


def test_ranked_coders_code_alike():
    """Coders at different ranks (stream priorities on a GPU; nothing on the
    CPU) give the same bytes and images; a rank that is not a count is refused."""
    arrays = images(2)
    results = []
    for rank in (0, 1, 7):
        with gj2k.Coder(device="auto", rank=rank) as coder:
            encoded = coder.encode_many(arrays)
            results.append(encoded)
            decoded = coder.decode_many(encoded)
            assert all(np.array_equal(a, b) for a, b in zip(arrays, decoded))
    assert results[0] == results[1] == results[2]
    for bad in (-1, 1.5, "2", True):
        with pytest.raises(gj2k.InvalidArgumentError, match="rank"):
            gj2k.Coder(device="cpu", rank=bad)


def test_gpu_coder_opens_a_gpu_or_says_why():
    try:
        coder = gj2k.Coder(device="gpu")
    except gj2k.DeviceError as error:
        assert not REQUIRE_GPU, str(error)
        assert "GPU" in str(error) or "CUDA" in str(error)  # none usable, or no CUDA built
        with gj2k.Coder(device="auto") as auto:  # auto falls back to the CPU
            assert not auto.on_gpu
            assert np.array_equal(auto.decode_many([gj2k.write(None, images(1)[0])])[0],
                                  images(1)[0])
        return
    with coder:
        assert coder.on_gpu
        arrays = images()
        assert all(np.array_equal(a, b)
                   for a, b in zip(arrays, coder.decode_many(coder.encode_many(arrays))))


def test_the_gil_is_released_while_decoding():
    rng = np.random.default_rng(9)
    data = gj2k.write(None, rng.integers(0, 256, (1024, 1024, 3)).astype(np.uint8))
    start = time.perf_counter()
    gj2k.read(data, threads=1)
    alone = time.perf_counter() - start
    done = threading.Event()
    worker = threading.Thread(target=lambda: (gj2k.read(data, threads=1), done.set()))
    ticks = 0
    worker.start()
    while not done.is_set():  # Python runs here only while the decode lets go of the GIL
        ticks += 1
    worker.join()
    # a held GIL would allow this loop a switch interval (5 ms) now and then, some
    # thousands of ticks; released, it spins the decode's whole time
    assert alone > 0.05 and ticks > 100000 * alone


def test_device_gpu_codes_there_or_raises_device_error():
    array = images(1)[0]
    try:
        data = gj2k.write(None, array, device="gpu")
    except gj2k.DeviceError as error:
        assert not REQUIRE_GPU, str(error)
        assert "GPU" in str(error)
        with pytest.raises(gj2k.DeviceError):
            gj2k.read(gj2k.write(None, array, device="cpu"), device="gpu")
        return
    assert data == gj2k.write(None, array, device="cpu")  # the same codestream either way
    assert np.array_equal(gj2k.read(data, device="gpu"), array)
