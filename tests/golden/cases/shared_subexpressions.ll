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
  %short = icmp ult i64 %n, 16
  br i1 %short, label %done, label %items

items:                                            ; preds = %stage2.done, %entry
  %from = phi i64 [ 0, %entry ], [ %end, %stage2.done ]
  %rest = sub nuw nsw i64 %n, %from
  %7 = add nuw nsw i64 %rest, 15
  %8 = and i64 %7, -16
  %9 = icmp ult i64 %8, 512
  %up = select i1 %9, i64 %8, i64 512
  %fits = icmp ule i64 %up, %n
  %back = sub nuw nsw i64 %n, %up
  %10 = icmp ult i64 %back, %from
  %11 = select i1 %10, i64 %back, i64 %from
  %block = select i1 %fits, i64 %11, i64 %from
  %12 = select i1 %fits, i64 %up, i64 %rest
  %length = and i64 %12, -16
  %no.items = icmp eq i64 %length, 0
  br i1 %no.items, label %done, label %block.body

done:                                             ; preds = %stage2.done, %items, %entry
  ret void

block.body:                                       ; preds = %items
  br label %stage0

stage0:                                           ; preds = %stage0, %block.body
  %j = phi i64 [ 0, %block.body ], [ %next, %stage0 ]
  %i = add nuw nsw i64 %block, %j
  %13 = getelementptr inbounds float, ptr %price, i64 %i
  %price2 = load float, ptr %13, align 4, !llvm.access.group !0
  %a = call float @calcjit_op_Abs(float %price2)
  %14 = add nuw nsw i64 0, %j
  %15 = getelementptr inbounds float, ptr %stage, i64 %14
  store float %a, ptr %15, align 4, !llvm.access.group !0
  %next = add nuw nsw i64 %j, 1
  %16 = icmp eq i64 %next, %length
  br i1 %16, label %stage0.done, label %stage0, !llvm.loop !1

stage0.done:                                      ; preds = %stage0
  %17 = getelementptr inbounds float, ptr %stage, i64 0
  %18 = getelementptr inbounds float, ptr %stage, i64 0
  call void @calcjit_col_Log1p_avx2(ptr %17, ptr %18, i64 %length) #0
  br label %stage2

stage2:                                           ; preds = %stage2, %stage0.done
  %j3 = phi i64 [ 0, %stage0.done ], [ %next16, %stage2 ]
  %i4 = add nuw nsw i64 %block, %j3
  %19 = add nuw nsw i64 0, %j3
  %20 = getelementptr inbounds float, ptr %stage, i64 %19
  %a5 = load float, ptr %20, align 4, !llvm.access.group !0
  %21 = getelementptr inbounds float, ptr %clicks, i64 %i4
  %clicks6 = load float, ptr %21, align 4, !llvm.access.group !0
  %a7 = call float @calcjit_op_Mul(float 5.000000e-01, float %clicks6)
  %a8 = call float @calcjit_op_Add(float %a5, float %a7)
  %canonical = call float @calcjit_canonicalize(float %a8)
  %22 = getelementptr inbounds float, ptr %out.a, i64 %i4
  store float %canonical, ptr %22, align 4, !llvm.access.group !0
  %b = call float @calcjit_op_Div(float %a5, float %q)
  %b9 = call float @calcjit_op_Add(float %a8, float %b)
  %canonical10 = call float @calcjit_canonicalize(float %b9)
  %23 = getelementptr inbounds float, ptr %out.b, i64 %i4
  store float %canonical10, ptr %23, align 4, !llvm.access.group !0
  %c = call float @calcjit_op_Mul(float %a8, float 2.500000e-01)
  %c11 = call float @calcjit_op_Mul(float %b9, float 7.500000e-01)
  %c12 = call float @calcjit_op_Add(float %c, float %c11)
  %c13 = call float @calcjit_op_Add(float 6.000000e+00, float %c12)
  %canonical14 = call float @calcjit_canonicalize(float %c13)
  %24 = getelementptr inbounds float, ptr %out.c, i64 %i4
  store float %canonical14, ptr %24, align 4, !llvm.access.group !0
  %canonical15 = call float @calcjit_canonicalize(float %c13)
  %25 = getelementptr inbounds float, ptr %out.c1, i64 %i4
  store float %canonical15, ptr %25, align 4, !llvm.access.group !0
  %next16 = add nuw nsw i64 %j3, 1
  %26 = icmp eq i64 %next16, %length
  br i1 %26, label %stage2.done, label %stage2, !llvm.loop !4

stage2.done:                                      ; preds = %stage2
  %end = add nuw nsw i64 %block, %length
  %27 = icmp uge i64 %end, %n
  br i1 %27, label %done, label %items
}

declare float @calcjit_op_Abs(float)

declare void @calcjit_col_Log1p_avx2(ptr, ptr, i64)

declare float @calcjit_op_Mul(float, float)

declare float @calcjit_op_Add(float, float)

declare float @calcjit_canonicalize(float)

declare float @calcjit_op_Div(float, float)

attributes #0 = { nounwind }

!0 = distinct !{}
!1 = distinct !{!1, !2, !3}
!2 = !{!"llvm.loop.parallel_accesses", !0}
!3 = !{!"llvm.loop.interleave.count", i32 1}
!4 = distinct !{!4, !2, !3}
