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
  %short = icmp ult i64 %n, 16
  br i1 %short, label %done, label %items

items:                                            ; preds = %stage0.done, %entry
  %from = phi i64 [ 0, %entry ], [ %end, %stage0.done ]
  %rest = sub nuw nsw i64 %n, %from
  %4 = add nuw nsw i64 %rest, 15
  %5 = and i64 %4, -16
  %6 = icmp ult i64 %5, 512
  %up = select i1 %6, i64 %5, i64 512
  %fits = icmp ule i64 %up, %n
  %back = sub nuw nsw i64 %n, %up
  %7 = icmp ult i64 %back, %from
  %8 = select i1 %7, i64 %back, i64 %from
  %block = select i1 %fits, i64 %8, i64 %from
  %9 = select i1 %fits, i64 %up, i64 %rest
  %length = and i64 %9, -16
  %no.items = icmp eq i64 %length, 0
  br i1 %no.items, label %done, label %block.body

done:                                             ; preds = %stage0.done, %items, %entry
  ret void

block.body:                                       ; preds = %items
  br label %stage0

stage0:                                           ; preds = %stage0, %block.body
  %j = phi i64 [ 0, %block.body ], [ %next, %stage0 ]
  %i = add nuw nsw i64 %block, %j
  %10 = getelementptr inbounds float, ptr %distance, i64 %i
  %distance1 = load float, ptr %10, align 4, !llvm.access.group !0
  %blend2 = call float @calcjit_op_Add(float %distance1, float 1.000000e+00)
  %11 = getelementptr inbounds float, ptr %similarity, i64 %i
  %similarity3 = load float, ptr %11, align 4, !llvm.access.group !0
  %blend4 = call float @calcjit_op_Div(float %similarity3, float %blend2)
  %blend5 = call float @calcjit_op_Add(float %blend4, float %blend)
  %canonical = call float @calcjit_canonicalize(float %blend5)
  %12 = getelementptr inbounds float, ptr %out.blend, i64 %i
  store float %canonical, ptr %12, align 4, !llvm.access.group !0
  %next = add nuw nsw i64 %j, 1
  %13 = icmp eq i64 %next, %length
  br i1 %13, label %stage0.done, label %stage0, !llvm.loop !1

stage0.done:                                      ; preds = %stage0
  %end = add nuw nsw i64 %block, %length
  %14 = icmp uge i64 %end, %n
  br i1 %14, label %done, label %items
}

declare float @calcjit_op_Add(float, float)

declare float @calcjit_op_Div(float, float)

declare float @calcjit_canonicalize(float)

attributes #0 = { nounwind }

!0 = distinct !{}
!1 = distinct !{!1, !2, !3}
!2 = !{!"llvm.loop.parallel_accesses", !0}
!3 = !{!"llvm.loop.interleave.count", i32 1}
