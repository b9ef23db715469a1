program: 1 phases, 0 columns, 5 scalars (those not listed start at 0)
  s0 = 0.5
  s2 = 6
  s3 = 0.25
  s4 = 0.75
  s1 = in0
phase 0
  region 'a..c': 10 nodes, for each item i:
    v0 = Abs in1[i]   ; %1
    v1 = Log1p v0   ; %2
    v2 = Mul 0.5, in2[i]   ; %5
    v3 = Add v1, v2   ; %6
    v4 = Div v1, s1   ; %8
    v5 = Add v3, v4   ; %9
    v6 = Mul v3, 0.25   ; %12
    v7 = Mul v5, 0.75   ; %14
    v8 = Add v6, v7   ; %15
    v9 = Add 6, v8   ; %16
    out0[i] = v3 (NaN made canonical)
    out1[i] = v5 (NaN made canonical)
    out2[i] = v9 (NaN made canonical)
    out3[i] = v9 (NaN made canonical)

; ---- region 'a..c' ----
; ModuleID = 'calcjit.a..c'
source_filename = "calcjit.a..c"

@llvm.compiler.used = appending global [2 x ptr] [ptr @_ZGVbN4v_calcjit_vec_Log1p, ptr @_ZGVdN8v_calcjit_vec_Log1p], section "llvm.metadata"

; Function Attrs: nounwind
define void @calcjit.a..c(ptr noalias nocapture readonly %reads, ptr noalias nocapture readonly %scalars, ptr noalias nocapture readonly %writes, i64 %n, ptr noalias nocapture %stage) #0 {
entry:
  %0 = getelementptr inbounds ptr, ptr %reads, i64 0
  %price = load ptr, ptr %0, align 8
  %1 = getelementptr inbounds ptr, ptr %reads, i64 1
  %clicks = load ptr, ptr %1, align 8
  %2 = getelementptr inbounds float, ptr %scalars, i64 0
  %q = load float, ptr %2, align 4
  %3 = getelementptr inbounds ptr, ptr %writes, i64 0
  %out.a = load ptr, ptr %3, align 8
  %4 = getelementptr inbounds ptr, ptr %writes, i64 1
  %out.b = load ptr, ptr %4, align 8
  %5 = getelementptr inbounds ptr, ptr %writes, i64 2
  %out.c = load ptr, ptr %5, align 8
  %6 = getelementptr inbounds ptr, ptr %writes, i64 3
  %out.c1 = load ptr, ptr %6, align 8
  %count = and i64 %n, -16
  %empty = icmp eq i64 %count, 0
  br i1 %empty, label %done, label %items

items:                                            ; preds = %items, %entry
  %i = phi i64 [ 0, %entry ], [ %next, %items ]
  %7 = getelementptr inbounds float, ptr %price, i64 %i
  %price2 = load float, ptr %7, align 4, !llvm.access.group !0
  %a = call float @calcjit_op_Abs(float %price2)
  %a3 = call float @calcjit_vec_Log1p(float %a) #1
  %8 = getelementptr inbounds float, ptr %clicks, i64 %i
  %clicks4 = load float, ptr %8, align 4, !llvm.access.group !0
  %a5 = call float @calcjit_op_Mul(float 5.000000e-01, float %clicks4)
  %a6 = call float @calcjit_op_Add(float %a3, float %a5)
  %canonical = call float @calcjit_canonicalize(float %a6)
  %9 = getelementptr inbounds float, ptr %out.a, i64 %i
  store float %canonical, ptr %9, align 4, !llvm.access.group !0
  %b = call float @calcjit_op_Div(float %a3, float %q)
  %b7 = call float @calcjit_op_Add(float %a6, float %b)
  %canonical8 = call float @calcjit_canonicalize(float %b7)
  %10 = getelementptr inbounds float, ptr %out.b, i64 %i
  store float %canonical8, ptr %10, align 4, !llvm.access.group !0
  %c = call float @calcjit_op_Mul(float %a6, float 2.500000e-01)
  %c9 = call float @calcjit_op_Mul(float %b7, float 7.500000e-01)
  %c10 = call float @calcjit_op_Add(float %c, float %c9)
  %c11 = call float @calcjit_op_Add(float 6.000000e+00, float %c10)
  %canonical12 = call float @calcjit_canonicalize(float %c11)
  %11 = getelementptr inbounds float, ptr %out.c, i64 %i
  store float %canonical12, ptr %11, align 4, !llvm.access.group !0
  %canonical13 = call float @calcjit_canonicalize(float %c11)
  %12 = getelementptr inbounds float, ptr %out.c1, i64 %i
  store float %canonical13, ptr %12, align 4, !llvm.access.group !0
  %next = add nuw nsw i64 %i, 1
  %last = icmp eq i64 %next, %count
  br i1 %last, label %done, label %items, !llvm.loop !1

done:                                             ; preds = %items, %entry
  ret void
}

declare float @calcjit_op_Abs(float)

declare <4 x float> @_ZGVbN4v_calcjit_vec_Log1p(<4 x float>)

declare <8 x float> @_ZGVdN8v_calcjit_vec_Log1p(<8 x float>)

declare float @calcjit_vec_Log1p(float)

declare float @calcjit_op_Mul(float, float)

declare float @calcjit_op_Add(float, float)

declare float @calcjit_canonicalize(float)

declare float @calcjit_op_Div(float, float)

attributes #0 = { nounwind }
attributes #1 = { nounwind willreturn memory(none) "vector-function-abi-variant"="_ZGVbN4v_calcjit_vec_Log1p(_ZGVbN4v_calcjit_vec_Log1p),_ZGVdN8v_calcjit_vec_Log1p(_ZGVdN8v_calcjit_vec_Log1p)" }

!0 = distinct !{}
!1 = distinct !{!1, !2, !3}
!2 = !{!"llvm.loop.parallel_accesses", !0}
!3 = !{!"llvm.loop.interleave.count", i32 1}
