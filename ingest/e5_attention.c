/* resultsqa: attention restricted to each text's own tokens, as in forward_batch, with the
 * keys transposed per head (kT[c][t], c = h*hd + e) so that the scores of 8 keys come from
 * one FMA per head dimension instead of a horizontal sum per key, and, for 32-wide heads,
 * the context row held in four registers while the values stream past. Same arithmetic. */
static void attend(const float *RESTRICT q, const float *RESTRICT k, const float *RESTRICT v,
                   float *RESTRICT ctx, const int *sstart, const int *send,
                   int T, int H, int NH, int hd, int maxp, float scale) {
    float *kT = (float *)malloc(sizeof(float) * (size_t)T * H);
#pragma omp parallel
    {
#pragma omp for schedule(static)
        for (int c = 0; c < H; c++)
            for (int t = 0; t < T; t++) kT[(size_t)c * T + t] = k[(size_t)t * H + c];
        float *prob = (float *)malloc(sizeof(float) * ((size_t)maxp + 8));
#pragma omp for collapse(2) schedule(static)
        for (int t = 0; t < T; t++)
            for (int h = 0; h < NH; h++) {
                int s0 = sstart[t], n = send[t] - sstart[t];
                const float *qh = q + (size_t)t * H + h * hd;
                const float *kb = kT + (size_t)h * hd * T + s0;   /* dimension e of key s: kb[e*T + s] */
                int s = 0;
#if defined(__AVX2__)
                for (; s + 32 <= n; s += 32) {
                    __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
                    for (int e = 0; e < hd; e++) {
                        const float *kr = kb + (size_t)e * T + s;
                        __m256 qe = _mm256_set1_ps(qh[e]);
                        a0 = _mm256_fmadd_ps(qe, _mm256_loadu_ps(kr), a0);
                        a1 = _mm256_fmadd_ps(qe, _mm256_loadu_ps(kr + 8), a1);
                        a2 = _mm256_fmadd_ps(qe, _mm256_loadu_ps(kr + 16), a2);
                        a3 = _mm256_fmadd_ps(qe, _mm256_loadu_ps(kr + 24), a3);
                    }
                    _mm256_storeu_ps(prob + s, a0); _mm256_storeu_ps(prob + s + 8, a1);
                    _mm256_storeu_ps(prob + s + 16, a2); _mm256_storeu_ps(prob + s + 24, a3);
                }
                for (; s + 8 <= n; s += 8) {
                    __m256 a0 = _mm256_setzero_ps();
                    for (int e = 0; e < hd; e++)
                        a0 = _mm256_fmadd_ps(_mm256_set1_ps(qh[e]), _mm256_loadu_ps(kb + (size_t)e * T + s), a0);
                    _mm256_storeu_ps(prob + s, a0);
                }
#endif
                for (; s < n; s++) {
                    float d = 0.f;
                    for (int e = 0; e < hd; e++) d += qh[e] * kb[(size_t)e * T + s];
                    prob[s] = d;
                }
                float mx = -1e30f;
                for (s = 0; s < n; s++) { prob[s] *= scale; if (prob[s] > mx) mx = prob[s]; }
                float sum = 0.f;
                for (s = 0; s < n; s++) { float e = expf(prob[s] - mx); prob[s] = e; sum += e; }
                float inv = 1.f / sum;
                float *ch = ctx + (size_t)t * H + h * hd;
                const float *vb = v + (size_t)s0 * H + h * hd;   /* value s of this head: vb + s*H */
#if defined(__AVX2__)
                if (hd == 32) {
                    __m256 c0 = _mm256_setzero_ps(), c1 = c0, c2 = c0, c3 = c0;
                    for (s = 0; s < n; s++) {
                        const float *vh = vb + (size_t)s * H;
                        __m256 p = _mm256_set1_ps(prob[s] * inv);
                        c0 = _mm256_fmadd_ps(p, _mm256_loadu_ps(vh), c0);
                        c1 = _mm256_fmadd_ps(p, _mm256_loadu_ps(vh + 8), c1);
                        c2 = _mm256_fmadd_ps(p, _mm256_loadu_ps(vh + 16), c2);
                        c3 = _mm256_fmadd_ps(p, _mm256_loadu_ps(vh + 24), c3);
                    }
                    _mm256_storeu_ps(ch, c0); _mm256_storeu_ps(ch + 8, c1);
                    _mm256_storeu_ps(ch + 16, c2); _mm256_storeu_ps(ch + 24, c3);
                    continue;
                }
#endif
                for (int e = 0; e < hd; e++) ch[e] = 0.f;
                for (s = 0; s < n; s++) {
                    float p = prob[s] * inv;
                    const float *vh = vb + (size_t)s * H;
                    for (int e = 0; e < hd; e++) ch[e] += p * vh[e];
                }
            }
        free(prob);
    }
    free(kT);
}

