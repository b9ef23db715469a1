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
  %count = and i64 %n, -16
  %empty = icmp eq i64 %count, 0
  br i1 %empty, label %done, label %items

items:                                            ; preds = %items, %entry
  %i = phi i64 [ 0, %entry ], [ %next, %items ]
  %4 = getelementptr inbounds float, ptr %f_bar, i64 %i
  %f_bar1 = load float, ptr %4, align 4, !llvm.access.group !0
  %5 = getelementptr inbounds float, ptr %f_baz, i64 %i
  %f_baz2 = load float, ptr %5, align 4, !llvm.access.group !0
  %f_qux = call float @calcjit_op_Add(float %f_bar1, float %f_baz2)
  %6 = getelementptr inbounds float, ptr %f_foo, i64 %i
  %f_foo3 = load float, ptr %6, align 4, !llvm.access.group !0
  %f_qux4 = call float @calcjit_op_Div(float %f_foo3, float %f_qux)
  %canonical = call float @calcjit_canonicalize(float %f_qux4)
  %7 = getelementptr inbounds float, ptr %out.f_qux, i64 %i
  store float %canonical, ptr %7, align 4, !llvm.access.group !0
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
