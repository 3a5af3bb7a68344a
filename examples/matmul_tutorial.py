"""The NKI matrix-multiplication tutorial's four kernels written with stasim.Kernel, as the tutorial writes them
(lhsT [K, M] x rhs [K, N] -> result [M, N], BF16). The same programs ship in C++ (kernels/matmul_tutorial.cpp,
`stasim kernel --list`); tests/python/test_module.py checks that these give the same timings.

    PYTHONPATH=build/python python3 examples/matmul_tutorial.py [M K N]

What the compiler chose and the tutorial does not show: lhsT loads on ScalarE's DMA queue ("act"), rhs loads on
the Sync engine's ("sync"), stores on GpSimd's ("pool"); a tile allocated in an affine_range loop gets two
rotating buffers when two fit in SBUF, one in a sequential_range loop; PSUM accumulators two banks (four in the
last kernel); PSUM is copied to SBUF on VectorE.
"""
import sys

import stasim

TILE_M, TILE_K, TILE_N = 128, 128, 512


def operands(k, M, K, N):
    return k.hbm("lhsT", K, M), k.hbm("rhs", K, N), k.hbm("result", M, N)


def drain(k, result, res_psum, m, n):
    res_sb = k.sbuf("res_sb", TILE_M, TILE_N, bufs=2)
    k.instruction("vector", "tensor_copy", res_sb, [res_psum])
    k.store(result.slice(row=m * TILE_M, rows=TILE_M, col=n * TILE_N, cols=TILE_N), res_sb, issuer="pool")


def tiled(k, M, K, N):
    lhsT, rhs, result = operands(k, M, K, N)
    for m in range(M // TILE_M):
        for n in range(N // TILE_N):
            res_psum = k.psum("res_psum", TILE_M, TILE_N, bufs=2)
            for kk in range(K // TILE_K):
                a = k.sbuf("lhsT_tile", TILE_K, TILE_M, bufs=2)
                b = k.sbuf("rhs_tile", TILE_K, TILE_N, bufs=2)
                k.load(a, lhsT.slice(row=kk * TILE_K, rows=TILE_K, col=m * TILE_M, cols=TILE_M), issuer="act")
                k.load(b, rhs.slice(row=kk * TILE_K, rows=TILE_K, col=n * TILE_N, cols=TILE_N), issuer="sync")
                k.matmul(res_psum, a, b, accumulate=kk > 0)
            drain(k, result, res_psum, m, n)


def hoist_load(k, M, K, N):
    lhsT, rhs, result = operands(k, M, K, N)
    KT = K // TILE_K
    for m in range(M // TILE_M):
        a = k.sbuf("lhsT_tiles", TILE_K, TILE_M, count=KT, bufs=2)
        for kk in range(KT):
            k.load(a.at(kk), lhsT.slice(row=kk * TILE_K, rows=TILE_K, col=m * TILE_M, cols=TILE_M), issuer="act")
        for n in range(N // TILE_N):
            b = k.sbuf("rhs_tiles", TILE_K, TILE_N, count=KT, bufs=2)
            for kk in range(KT):
                k.load(b.at(kk), rhs.slice(row=kk * TILE_K, rows=TILE_K, col=n * TILE_N, cols=TILE_N), issuer="sync")
            res_psum = k.psum("res_psum", TILE_M, TILE_N, bufs=2)
            for kk in range(KT):
                k.matmul(res_psum, a.at(kk), b.at(kk), accumulate=kk > 0)
            drain(k, result, res_psum, m, n)


def block_free(k, M, K, N, block_m=2, block_n=2):
    lhsT, rhs, result = operands(k, M, K, N)
    KT = K // TILE_K
    for m in range(M // (TILE_M * block_m)):
        a = k.sbuf("lhsT_tiles", TILE_K, TILE_M, count=block_m * KT)   # 1 buffer: two do not fit
        for bm in range(block_m):
            for kk in range(KT):
                k.load(a.at(bm * KT + kk), lhsT.slice(row=kk * TILE_K, rows=TILE_K,
                                                      col=(m * block_m + bm) * TILE_M, cols=TILE_M), issuer="act")
        for n in range(N // (TILE_N * block_n)):
            b = k.sbuf("rhs_tiles", TILE_K, TILE_N, count=block_n * KT)
            for bn in range(block_n):
                for kk in range(KT):
                    k.load(b.at(bn * KT + kk), rhs.slice(row=kk * TILE_K, rows=TILE_K,
                                                         col=(n * block_n + bn) * TILE_N, cols=TILE_N), issuer="sync")
            for bm in range(block_m):
                for bn in range(block_n):
                    res_psum = k.psum("res_psum", TILE_M, TILE_N, bufs=2)
                    for kk in range(KT):
                        k.matmul(res_psum, a.at(bm * KT + kk), b.at(bn * KT + kk), accumulate=kk > 0)
                    drain(k, result, res_psum, m * block_m + bm, n * block_n + bn)


def fully_optimized(k, M, K, N, tiles_m=16, tiles_n=2, tiles_k=8):
    lhsT, rhs, result = operands(k, M, K, N)
    block_m, block_n, block_k = TILE_M * tiles_m, TILE_N * tiles_n, TILE_K * tiles_k
    blocks_m, blocks_n, blocks_k = M // block_m, N // block_n, K // block_k

    def index(m, bm, bn):
        return (m * tiles_m + bm) * tiles_n + bn

    for n in range(blocks_n):
        result_tiles = k.sbuf("result_tiles", TILE_M, TILE_N, count=blocks_m * tiles_m * tiles_n)
        k.instruction("gpsimd", "memset", result_tiles)
        for kb in range(blocks_k):                      # a sequential_range: one buffer
            b = k.sbuf("rhs_tiles", TILE_K, block_n, count=tiles_k)
            for bk in range(tiles_k):
                k.load(b.at(bk), rhs.slice(row=(tiles_k * kb + bk) * TILE_K, rows=TILE_K, col=block_n * n,
                                           cols=block_n), issuer="sync")
            for m in range(blocks_m):
                a = k.sbuf("lhsT_tiles", TILE_K, block_m, count=tiles_k, bufs=2)
                for bk in range(tiles_k):
                    k.load(a.at(bk), lhsT.slice(row=(tiles_k * kb + bk) * TILE_K, rows=TILE_K, col=block_m * m,
                                                cols=block_m), issuer="act")
                for bn in range(tiles_n):
                    for bm in range(tiles_m):
                        res = k.psum("res_tile", TILE_M, TILE_N, bufs=4)
                        for bk in range(tiles_k):
                            k.matmul(res, a.at(bk).cols(bm * TILE_M, TILE_M), b.at(bk).cols(bn * TILE_N, TILE_N),
                                     accumulate=bk > 0)
                        acc = result_tiles.at(index(m, bm, bn))
                        k.instruction("vector", "tensor_tensor", acc, [acc, res])
        for m in range(blocks_m):
            for bm in range(tiles_m):
                packed = k.sbuf("result_packed", TILE_M, block_n, bufs=2)
                for bn in range(tiles_n):
                    k.activation(packed.cols(bn * TILE_N, TILE_N), result_tiles.at(index(m, bm, bn)), "copy")
                k.store(result.slice(row=(tiles_m * m + bm) * TILE_M, rows=TILE_M, col=block_n * n, cols=block_n),
                        packed, issuer="pool")


KERNELS = {"matmul-tiled": tiled, "matmul-hoist-load": hoist_load, "matmul-block-free": block_free,
           "matmul-fully-optimized": fully_optimized}


def simulate(name, M, K, N, hw="trn1"):
    k = stasim.Kernel(hw=hw, name=name)
    KERNELS[name](k, M, K, N)
    return k.simulate()


if __name__ == "__main__":
    M, K, N = (int(x) for x in sys.argv[1:4]) if len(sys.argv) >= 4 else (4096, 8192, 8192)
    for name in KERNELS:
        print(f"{name:24s} {simulate(name, M, K, N)['total_ns'] / 1e6:8.3f} ms")
