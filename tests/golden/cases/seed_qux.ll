program: 1 phases, 0 columns, 0 scalars (those not listed start at 0)
phase 0
  region 'f_qux': 2 nodes, for each item i:
    v0 = Add in1[i], in2[i]   ; %3
    v1 = Div in0[i], v0   ; %4
    out0[i] = v1 (NaN made canonical)

; ---- region 'f_qux' ----
; ModuleID = 'calcjit.f_qux'
source_filename = "calcjit.f_qux"

; Function Attrs: nounwind
define void @calcjit.f_qux(ptr noalias nocapture readonly %reads, ptr noalias nocapture readonly %scalars, ptr noalias nocapture readonly %writes, i64 %n, ptr noalias nocapture %stage) #0 {
entry:
  %0 = getelementptr inbounds ptr, ptr %reads, i64 0
  %f_bar = load ptr, ptr %0, align 8
  %1 = getelementptr inbounds ptr, ptr %reads, i64 1
  %f_baz = load ptr, ptr %1, align 8
  %2 = getelementptr inbounds ptr, ptr %reads, i64 2
  %f_foo = load ptr, ptr %2, align 8
  %3 = getelementptr inbounds ptr, ptr %writes, i64 0
  %out.f_qux = load ptr, ptr %3, align 8
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
  %10 = getelementptr inbounds float, ptr %f_bar, i64 %i
  %f_bar1 = load float, ptr %10, align 4, !llvm.access.group !0
  %11 = getelementptr inbounds float, ptr %f_baz, i64 %i
  %f_baz2 = load float, ptr %11, align 4, !llvm.access.group !0
  %f_qux = call float @calcjit_op_Add(float %f_bar1, float %f_baz2)
  %12 = getelementptr inbounds float, ptr %f_foo, i64 %i
  %f_foo3 = load float, ptr %12, align 4, !llvm.access.group !0
  %f_qux4 = call float @calcjit_op_Div(float %f_foo3, float %f_qux)
  %canonical = call float @calcjit_canonicalize(float %f_qux4)
  %13 = getelementptr inbounds float, ptr %out.f_qux, i64 %i
  store float %canonical, ptr %13, align 4, !llvm.access.group !0
  %next = add nuw nsw i64 %j, 1
  %14 = icmp eq i64 %next, %length
  br i1 %14, label %stage0.done, label %stage0, !llvm.loop !1

stage0.done:                                      ; preds = %stage0
  %end = add nuw nsw i64 %block, %length
  %15 = icmp uge i64 %end, %n
  br i1 %15, label %done, label %items
}

declare float @calcjit_op_Add(float, float)

declare float @calcjit_op_Div(float, float)

declare float @calcjit_canonicalize(float)

attributes #0 = { nounwind }

!0 = distinct !{}
!1 = distinct !{!1, !2, !3}
!2 = !{!"llvm.loop.parallel_accesses", !0}
!3 = !{!"llvm.loop.interleave.count", i32 1}
