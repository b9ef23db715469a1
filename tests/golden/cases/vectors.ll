program: 1 phases, 2 columns, 4 scalars (those not listed start at 0)
  s1 = 1
phase 0
  step Cosine col0 = in0, in1   ; %0
  step L2Distance col1 = in0, in1   ; %1
  step Norm s0 = in1   ; %2
  once Mul s3 = s0, s2   ; %7
  region 'blend': 3 nodes, for each item i:
    v0 = Add col1[i], 1   ; %4
    v1 = Div col0[i], v0   ; %5
    v2 = Add v1, s3   ; %8
    out3[i] = v2 (NaN made canonical)
  store out0 = col0 (NaN made canonical)
  store out1 = col1 (NaN made canonical)
fill out2 = s0

; ---- region 'blend' ----
; ModuleID = 'calcjit.blend'
source_filename = "calcjit.blend"

; Function Attrs: nounwind
define void @calcjit.blend(ptr noalias nocapture readonly %reads, ptr noalias nocapture readonly %scalars, ptr noalias nocapture readonly %writes, i64 %n, ptr noalias nocapture %stage) #0 {
entry:
  %0 = getelementptr inbounds ptr, ptr %reads, i64 0
  %distance = load ptr, ptr %0, align 8
  %1 = getelementptr inbounds ptr, ptr %reads, i64 1
  %similarity = load ptr, ptr %1, align 8
  %2 = getelementptr inbounds float, ptr %scalars, i64 0
  %blend = load float, ptr %2, align 4
  %3 = getelementptr inbounds ptr, ptr %writes, i64 0
  %out.blend = load ptr, ptr %3, align 8
  %count = and i64 %n, -16
  %empty = icmp eq i64 %count, 0
  br i1 %empty, label %done, label %items

items:                                            ; preds = %items, %entry
  %i = phi i64 [ 0, %entry ], [ %next, %items ]
  %4 = getelementptr inbounds float, ptr %distance, i64 %i
  %distance1 = load float, ptr %4, align 4, !llvm.access.group !0
  %blend2 = call float @calcjit_op_Add(float %distance1, float 1.000000e+00)
  %5 = getelementptr inbounds float, ptr %similarity, i64 %i
  %similarity3 = load float, ptr %5, align 4, !llvm.access.group !0
  %blend4 = call float @calcjit_op_Div(float %similarity3, float %blend2)
  %blend5 = call float @calcjit_op_Add(float %blend4, float %blend)
  %canonical = call float @calcjit_canonicalize(float %blend5)
  %6 = getelementptr inbounds float, ptr %out.blend, i64 %i
  store float %canonical, ptr %6, align 4, !llvm.access.group !0
  %next = add nuw nsw i64 %i, 1
  %last = icmp eq i64 %next, %count
  br i1 %last, label %done, label %items, !llvm.loop !1

done:                                             ; preds = %items, %entry
  ret void
}

declare float @calcjit_op_Add(float, float)

declare float @calcjit_op_Div(float, float)

declare float @calcjit_canonicalize(float)

attributes #0 = { nounwind }

!0 = distinct !{}
!1 = distinct !{!1, !2, !3}
!2 = !{!"llvm.loop.parallel_accesses", !0}
!3 = !{!"llvm.loop.interleave.count", i32 1}
