// sh.c — real spherical harmonics l <= 2 on the host (see sh.h).
#include "sh.h"

#include <math.h>

int cs_sh_band(int i)
{
    return i == 0 ? 0 : i < 4 ? 1 : 2;
}

double cs_sh_cosine_lobe(int l)
{
    static const double a[3] = {CS_SH_A0, CS_SH_A1, CS_SH_A2};
    CS_ASSERT(l >= 0 && l <= 2, "band %d of an l <= 2 basis", l);
    return a[l];
}

void cs_sh_basis(const double d[3], double y[CS_SH_COUNT])
{
    double x = d[0], yy = d[1], z = d[2];
    y[0] = CS_SH_K00;
    y[1] = CS_SH_K1 * yy;
    y[2] = CS_SH_K1 * z;
    y[3] = CS_SH_K1 * x;
    y[4] = CS_SH_K2 * x * yy;
    y[5] = CS_SH_K2 * yy * z;
    y[6] = CS_SH_K20 * (3.0 * z * z - 1.0);
    y[7] = CS_SH_K2 * x * z;
    y[8] = CS_SH_K22 * (x * x - yy * yy);
}

void cs_sh_basis_f(const float d[3], float y[CS_SH_COUNT])
{
    float x = d[0], yy = d[1], z = d[2];
    y[0] = (float)CS_SH_K00;
    y[1] = (float)CS_SH_K1 * yy;
    y[2] = (float)CS_SH_K1 * z;
    y[3] = (float)CS_SH_K1 * x;
    y[4] = (float)CS_SH_K2 * x * yy;
    y[5] = (float)CS_SH_K2 * yy * z;
    y[6] = (float)CS_SH_K20 * (3.0f * z * z - 1.0f);
    y[7] = (float)CS_SH_K2 * x * z;
    y[8] = (float)CS_SH_K22 * (x * x - yy * yy);
}

void cs_sh_eval(const double c[CS_SH_COUNT][3], const double n[3], double out[3])
{
    double y[CS_SH_COUNT];
    cs_sh_basis(n, y);
    for (int ch = 0; ch < 3; ch++) {
        out[ch] = 0.0;
        for (int i = 0; i < CS_SH_COUNT; i++)
            out[ch] += c[i][ch] * y[i];
    }
}

void cs_sh_to_irradiance(const double radiance[CS_SH_COUNT][3], double irradiance[CS_SH_COUNT][3])
{
    for (int i = 0; i < CS_SH_COUNT; i++)
        for (int ch = 0; ch < 3; ch++)
            irradiance[i][ch] = cs_sh_cosine_lobe(cs_sh_band(i)) * radiance[i][ch];
}

void cs_sh_irradiance(const double radiance[CS_SH_COUNT][3], const double n[3], double out[3])
{
    double e[CS_SH_COUNT][3];
    cs_sh_to_irradiance(radiance, e);
    cs_sh_eval((const double(*)[3])e, n, out);
}

void cs_sh_irradiance_f(const float radiance[CS_SH_COUNT][3], const float n[3], float out[3])
{
    // The order of sh.glsl's cs_sh_irradiance: bands summed, then scaled.
    float y[CS_SH_COUNT];
    cs_sh_basis_f(n, y);
    for (int ch = 0; ch < 3; ch++) {
        float band[3] = {0.0f, 0.0f, 0.0f};
        for (int i = 0; i < CS_SH_COUNT; i++)
            band[cs_sh_band(i)] += radiance[i][ch] * y[i];
        out[ch] = (float)CS_SH_A0 * band[0] + (float)CS_SH_A1 * band[1] + (float)CS_SH_A2 * band[2];
    }
}

// ---------------------------------------------------------------- rotation

// Solves A X = B for X in place (A n x n, B n x n, both destroyed/overwritten:
// X ends in B), Gauss-Jordan with partial pivoting. n <= 5.
static void solve(int n, double A[5][5], double B[5][5])
{
    for (int col = 0; col < n; col++) {
        int pivot = col;
        for (int r = col + 1; r < n; r++)
            if (fabs(A[r][col]) > fabs(A[pivot][col]))
                pivot = r;
        CS_ASSERT(fabs(A[pivot][col]) > 1e-9, "SH rotation: sample directions do not span band (column %d)", col);
        for (int k = 0; k < n; k++) {
            double t = A[col][k];
            A[col][k] = A[pivot][k], A[pivot][k] = t;
            t = B[col][k];
            B[col][k] = B[pivot][k], B[pivot][k] = t;
        }
        double inv = 1.0 / A[col][col];
        for (int k = 0; k < n; k++)
            A[col][k] *= inv, B[col][k] *= inv;
        for (int r = 0; r < n; r++) {
            if (r == col || A[r][col] == 0.0)
                continue;
            double f = A[r][col];
            for (int k = 0; k < n; k++)
                A[r][k] -= f * A[col][k], B[r][k] -= f * B[col][k];
        }
    }
}

void cs_sh_rotation(const double R[3][3], double M[CS_SH_COUNT][CS_SH_COUNT])
{
    // 2l + 1 directions per band whose basis values are independent (band 1:
    // the axes; band 2: two axes and three diagonals, each of xy, yz, xz
    // nonzero at exactly one of them).
    const double h = sqrt(0.5);
    static const int first[3] = {0, 1, 4};
    const double dirs1[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    const double dirs2[5][3] = {{1, 0, 0}, {0, 0, 1}, {h, h, 0}, {0, h, h}, {h, 0, h}};
    memset(M, 0, sizeof(double) * CS_SH_COUNT * CS_SH_COUNT);
    M[0][0] = 1.0;
    for (int l = 1; l <= 2; l++) {
        int n = 2 * l + 1, f = first[l];
        double A[5][5], B[5][5];
        for (int k = 0; k < n; k++) {
            const double *nk = l == 1 ? dirs1[k] : dirs2[k];
            // R^T n_k: where the light now arriving from n_k came from.
            double back[3];
            for (int a = 0; a < 3; a++)
                back[a] = R[0][a] * nk[0] + R[1][a] * nk[1] + R[2][a] * nk[2];
            double ya[CS_SH_COUNT], yb[CS_SH_COUNT];
            cs_sh_basis(nk, ya);
            cs_sh_basis(back, yb);
            for (int m = 0; m < n; m++)
                A[k][m] = ya[f + m], B[k][m] = yb[f + m];
        }
        // Rotated function g(n) = f(R^T n): sum_m' c'_m' Y_m'(n_k) =
        // sum_m c_m Y_m(R^T n_k) for every k, so c' = A^-1 B c.
        solve(n, A, B);
        for (int r = 0; r < n; r++)
            for (int c = 0; c < n; c++)
                M[f + r][f + c] = B[r][c];
    }
}

void cs_sh_rotate(const double R[3][3], const double in[CS_SH_COUNT][3], double out[CS_SH_COUNT][3])
{
    double M[CS_SH_COUNT][CS_SH_COUNT];
    cs_sh_rotation(R, M);
    double tmp[CS_SH_COUNT][3];
    for (int i = 0; i < CS_SH_COUNT; i++)
        for (int ch = 0; ch < 3; ch++) {
            tmp[i][ch] = 0.0;
            for (int j = 0; j < CS_SH_COUNT; j++)
                tmp[i][ch] += M[i][j] * in[j][ch];
        }
    memcpy(out, tmp, sizeof tmp);
}
