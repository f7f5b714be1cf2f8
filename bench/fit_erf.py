"""Fits the rational erf of kernels/cpu_math/vec_math_avx2.cpp (erf8): erf(z) ~= z * P(z^2) / Q(z^2)
on [0, C], P and Q of the given degrees, by weighted linear least squares on Chebyshev bases
(Sanathanan-Koerner iterations, then Lawson reweighting toward the smallest maximum absolute
error), and reports the error of the float32 coefficients evaluated in float32.

    /opt/tv/bin/python bench/fit_erf.py 4 5 5      # C, degree of P, degree of Q
"""
import numpy as np, mpmath, sys
C=float(sys.argv[1]); dp=int(sys.argv[2]); dq=int(sys.argv[3])
x=np.linspace(0,C,6000)
f=np.array([float(mpmath.erf(v)) for v in x])
s=(x/C)**2
g=np.where(x>0, f/np.where(x>0,x,1), 2/np.sqrt(np.pi))
Vp=np.polynomial.chebyshev.chebvander(2*s-1,dp)
Vq=np.polynomial.chebyshev.chebvander(2*s-1,dq)
Q=np.ones_like(x); lw=np.ones_like(x)
for it in range(60):
    A=np.concatenate([Vp, -g[:,None]*Vq[:,1:]],axis=1)
    # normalise q0 coefficient: Q = 1*T0 + sum qk Tk
    wt = lw*x/np.abs(Q)  # abs error of erf ~ x*(P - gQ)/Q
    wt[0]=wt[1]
    sol,*_=np.linalg.lstsq(A*wt[:,None], g*wt, rcond=None)
    pc=sol[:dp+1]; qc=np.concatenate([[1.0],sol[dp+1:]])
    P=Vp@pc; Q=Vq@qc
    err=x*P/Q-f
    if it>=15: lw = lw*np.sqrt(np.abs(err)/np.abs(err).max()+1e-4); lw/=lw.max()
# to monomials in t = x^2: cheb in u=2s-1=2t/C^2-1
from numpy.polynomial import chebyshev as Ch, polynomial as Po
def conv(c):
    m=Ch.cheb2poly(c)  # in u
    # u = a t + b
    a=2/C**2; b=-1.0
    res=np.zeros(len(m))
    for k,ck in enumerate(m):
        res[:k+1]+= ck*Po.polypow([b,a],k)[:k+1]
    return res
p=conv(pc); q=conv(qc); p/=q[0]; q/=q[0]
p32=p.astype(np.float32); q32=q.astype(np.float32)
xs=np.linspace(0,6,100001).astype(np.float32)
fx=np.array([float(mpmath.erf(float(v))) for v in xs])
xc=np.minimum(xs,np.float32(C)); tt=(xc*xc).astype(np.float32)
def horner(c,t):
    r=np.zeros_like(t)+c[-1]
    for cc in c[-2::-1]: r=(r*t+cc).astype(np.float32)
    return r
y=(xc*horner(p32,tt)/horner(q32,tt)).astype(np.float32)
y=np.minimum(y,np.float32(1))
e=np.abs(y.astype(np.float64)-fx)
rel=(e/np.maximum(fx,1e-30))[(xs<1)&(xs>0)]
print(C,dp,dq,"max abs err f32 %.3g at %g; max rel (0<x<1) %.3g; float64 fit err %.3g"%(e.max(), xs[e.argmax()], rel.max(), np.abs(err).max()))
print("p=",[float(v) for v in p32]); print("q=",[float(v) for v in q32])
