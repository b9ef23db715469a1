program: 2 phases, 7 columns, 1 scalars (those not listed start at 0)
  s0 = 3
phase 0
  region 'cheapest..kept': 3 nodes, for each item i:
    v0 = Neg in0[i]   ; %1
    v1 = Mul in0[i], in1[i]   ; %5
    v2 = Sub in1[i], in0[i]   ; %7
    col0[i] = v0
    col3[i] = v1
    col5[i] = v2
phase 1
  step RankAtMost col1 = col0, bound 1   ; %2
  step RankAtMost col2 = in1, bound 10   ; %4
  step RankAtMost col4 = col3, bound 4.9999995   ; %6
  step Rank col6 = col5   ; %8
  region 'kept': 2 nodes, for each item i:
    v0 = Lt col6[i], 3   ; %10
    v1 = Add col6[i], v0   ; %11
    out3[i] = v1 (NaN made canonical)
  store out0 = col1 (NaN made canonical)
  store out1 = col2 (NaN made canonical)
  store out2 = col4 (NaN made canonical)

; ---- region 'cheapest..kept' ----
; ModuleID = 'calcjit.cheapest..kept'
source_filename = "calcjit.cheapest..kept"

; Function Attrs: nounwind
define void @calcjit.cheapest..kept(ptr noalias nocapture readonly %reads, ptr noalias nocapture readonly %scalars, ptr noalias nocapture readonly %writes, i64 %n, ptr noalias nocapture %stage) #0 {
entry:
  %0 = getelementptr inbounds ptr, ptr %reads, i64 0
  %price = load ptr, ptr %0, align 8
  %1 = getelementptr inbounds ptr, ptr %reads, i64 1
  %rating = load ptr, ptr %1, align 8
  %2 = getelementptr inbounds ptr, ptr %writes, i64 0
  %out.cheapest = load ptr, ptr %2, align 8
  %3 = getelementptr inbounds ptr, ptr %writes, i64 1
  %out.under5 = load ptr, ptr %3, align 8
  %4 = getelementptr inbounds ptr, ptr %writes, i64 2
  %out.kept = load ptr, ptr %4, align 8
  %short = icmp ult i64 %n, 16
  br i1 %short, label %done, label %items

items:                                            ; preds = %stage0.done, %entry
  %from = phi i64 [ 0, %entry ], [ %end, %stage0.done ]
  %rest = sub nuw nsw i64 %n, %from
  %5 = add nuw nsw i64 %rest, 15
  %6 = and i64 %5, -16
  %7 = icmp ult i64 %6, 512
  %up = select i1 %7, i64 %6, i64 512
  %fits = icmp ule i64 %up, %n
  %back = sub nuw nsw i64 %n, %up
  %8 = icmp ult i64 %back, %from
  %9 = select i1 %8, i64 %back, i64 %from
  %block = select i1 %fits, i64 %9, i64 %from
  %10 = select i1 %fits, i64 %up, i64 %rest
  %length = and i64 %10, -16
  %no.items = icmp eq i64 %length, 0
  br i1 %no.items, label %done, label %block.body

done:                                             ; preds = %stage0.done, %items, %entry
  ret void

block.body:                                       ; preds = %items
  br label %stage0

stage0:                                           ; preds = %stage0, %block.body
  %j = phi i64 [ 0, %block.body ], [ %next, %stage0 ]
  %i = add nuw nsw i64 %block, %j
  %11 = getelementptr inbounds float, ptr %price, i64 %i
  %price1 = load float, ptr %11, align 4, !llvm.access.group !0
  %cheapest = call float @calcjit_op_Neg(float %price1)
  %12 = getelementptr inbounds float, ptr %out.cheapest, i64 %i
  store float %cheapest, ptr %12, align 4, !llvm.access.group !0
  %13 = getelementptr inbounds float, ptr %rating, i64 %i
  %rating2 = load float, ptr %13, align 4, !llvm.access.group !0
  %under5 = call float @calcjit_op_Mul(float %price1, float %rating2)
  %14 = getelementptr inbounds float, ptr %out.under5, i64 %i
  store float %under5, ptr %14, align 4, !llvm.access.group !0
  %kept = call float @calcjit_op_Sub(float %rating2, float %price1)
  %15 = getelementptr inbounds float, ptr %out.kept, i64 %i
  store float %kept, ptr %15, align 4, !llvm.access.group !0
  %next = add nuw nsw i64 %j, 1
  %16 = icmp eq i64 %next, %length
  br i1 %16, label %stage0.done, label %stage0, !llvm.loop !1

stage0.done:                                      ; preds = %stage0
  %end = add nuw nsw i64 %block, %length
  %17 = icmp uge i64 %end, %n
  br i1 %17, label %done, label %items
}

declare float @calcjit_op_Neg(float)

declare float @calcjit_op_Mul(float, float)

declare float @calcjit_op_Sub(float, float)

attributes #0 = { nounwind }

!0 = distinct !{}
!1 = distinct !{!1, !2, !3}
!2 = !{!"llvm.loop.parallel_accesses", !0}
!3 = !{!"llvm.loop.interleave.count", i32 1}

; ---- region 'kept' ----
; ModuleID = 'calcjit.kept'
source_filename = "calcjit.kept"

; Function Attrs: nounwind
define void @calcjit.kept(ptr noalias nocapture readonly %reads, ptr noalias nocapture readonly %scalars, ptr noalias nocapture readonly %writes, i64 %n, ptr noalias nocapture %stage) #0 {
entry:
  %0 = getelementptr inbounds ptr, ptr %reads, i64 0
  %kept = load ptr, ptr %0, align 8
  %1 = getelementptr inbounds ptr, ptr %writes, i64 0
  %out.kept = load ptr, ptr %1, align 8
  %short = icmp ult i64 %n, 16
  br i1 %short, label %done, label %items

items:                                            ; preds = %stage0.done, %entry
  %from = phi i64 [ 0, %entry ], [ %end, %stage0.done ]
  %rest = sub nuw nsw i64 %n, %from
  %2 = add nuw nsw i64 %rest, 15
  %3 = and i64 %2, -16
  %4 = icmp ult i64 %3, 512
  %up = select i1 %4, i64 %3, i64 512
  %fits = icmp ule i64 %up, %n
  %back = sub nuw nsw i64 %n, %up
  %5 = icmp ult i64 %back, %from
  %6 = select i1 %5, i64 %back, i64 %from
  %block = select i1 %fits, i64 %6, i64 %from
  %7 = select i1 %fits, i64 %up, i64 %rest
  %length = and i64 %7, -16
  %no.items = icmp eq i64 %length, 0
  br i1 %no.items, label %done, label %block.body

done:                                             ; preds = %stage0.done, %items, %entry
  ret void

block.body:                                       ; preds = %items
  br label %stage0

stage0:                                           ; preds = %stage0, %block.body
  %j = phi i64 [ 0, %block.body ], [ %next, %stage0 ]
  %i = add nuw nsw i64 %block, %j
  %8 = getelementptr inbounds float, ptr %kept, i64 %i
  %kept1 = load float, ptr %8, align 4, !llvm.access.group !0
  %kept2 = call float @calcjit_op_Lt(float %kept1, float 3.000000e+00)
  %kept3 = call float @calcjit_op_Add(float %kept1, float %kept2)
  %canonical = call float @calcjit_canonicalize(float %kept3)
  %9 = getelementptr inbounds float, ptr %out.kept, i64 %i
  store float %canonical, ptr %9, align 4, !llvm.access.group !0
  %next = add nuw nsw i64 %j, 1
  %10 = icmp eq i64 %next, %length
  br i1 %10, label %stage0.done, label %stage0, !llvm.loop !1

stage0.done:                                      ; preds = %stage0
  %end = add nuw nsw i64 %block, %length
  %11 = icmp uge i64 %end, %n
  br i1 %11, label %done, label %items
}

declare float @calcjit_op_Lt(float, float)

declare float @calcjit_op_Add(float, float)

declare float @calcjit_canonicalize(float)

attributes #0 = { nounwind }

!0 = distinct !{}
!1 = distinct !{!1, !2, !3}
!2 = !{!"llvm.loop.parallel_accesses", !0}
!3 = !{!"llvm.loop.interleave.count", i32 1}
