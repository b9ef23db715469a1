program: 1 phases, 0 columns, 0 scalars (those not listed start at 0)
phase 0
  region 's': 9 nodes, for each item i:
    v0 = Add in0[i], in1[i]   ; %2
    v1 = Add v0, in2[i]   ; %4
    v2 = Add v1, in3[i]   ; %6
    v3 = Add v2, in4[i]   ; %8
    v4 = Add v3, in5[i]   ; %10
    v5 = Add v4, in6[i]   ; %12
    v6 = Add v5, in7[i]   ; %14
    v7 = Add v6, in8[i]   ; %16
    v8 = Add v7, in9[i]   ; %18
    out0[i] = v8 (NaN made canonical)

; ---- region 's' ----
; ModuleID = 'calcjit.s'
source_filename = "calcjit.s"

; Function Attrs: nounwind
define void @calcjit.s(ptr noalias nocapture readonly %reads, ptr noalias nocapture readonly %scalars, ptr noalias nocapture readonly %writes, i64 %n, ptr noalias nocapture %stage) #0 {
entry:
  %0 = getelementptr inbounds ptr, ptr %reads, i64 0
  %x0 = load ptr, ptr %0, align 8
  %1 = getelementptr inbounds ptr, ptr %reads, i64 1
  %x1 = load ptr, ptr %1, align 8
  %2 = getelementptr inbounds ptr, ptr %reads, i64 2
  %x2 = load ptr, ptr %2, align 8
  %3 = getelementptr inbounds ptr, ptr %reads, i64 3
  %x3 = load ptr, ptr %3, align 8
  %4 = getelementptr inbounds ptr, ptr %reads, i64 4
  %x4 = load ptr, ptr %4, align 8
  %5 = getelementptr inbounds ptr, ptr %reads, i64 5
  %x5 = load ptr, ptr %5, align 8
  %6 = getelementptr inbounds ptr, ptr %reads, i64 6
  %x6 = load ptr, ptr %6, align 8
  %7 = getelementptr inbounds ptr, ptr %reads, i64 7
  %x7 = load ptr, ptr %7, align 8
  %8 = getelementptr inbounds ptr, ptr %reads, i64 8
  %x8 = load ptr, ptr %8, align 8
  %9 = getelementptr inbounds ptr, ptr %reads, i64 9
  %x9 = load ptr, ptr %9, align 8
  %10 = getelementptr inbounds ptr, ptr %writes, i64 0
  %out.s = load ptr, ptr %10, align 8
  %short = icmp ult i64 %n, 16
  br i1 %short, label %done, label %items

items:                                            ; preds = %stage0.done, %entry
  %from = phi i64 [ 0, %entry ], [ %end, %stage0.done ]
  %rest = sub nuw nsw i64 %n, %from
  %11 = add nuw nsw i64 %rest, 15
  %12 = and i64 %11, -16
  %13 = icmp ult i64 %12, 512
  %up = select i1 %13, i64 %12, i64 512
  %fits = icmp ule i64 %up, %n
  %back = sub nuw nsw i64 %n, %up
  %14 = icmp ult i64 %back, %from
  %15 = select i1 %14, i64 %back, i64 %from
  %block = select i1 %fits, i64 %15, i64 %from
  %16 = select i1 %fits, i64 %up, i64 %rest
  %length = and i64 %16, -16
  %no.items = icmp eq i64 %length, 0
  br i1 %no.items, label %done, label %block.body

done:                                             ; preds = %stage0.done, %items, %entry
  ret void

block.body:                                       ; preds = %items
  br label %stage0

stage0:                                           ; preds = %stage0, %block.body
  %j = phi i64 [ 0, %block.body ], [ %next, %stage0 ]
  %i = add nuw nsw i64 %block, %j
  %17 = getelementptr inbounds float, ptr %x0, i64 %i
  %x01 = load float, ptr %17, align 4, !llvm.access.group !0
  %18 = getelementptr inbounds float, ptr %x1, i64 %i
  %x12 = load float, ptr %18, align 4, !llvm.access.group !0
  %s = call float @calcjit_op_Add(float %x01, float %x12)
  %19 = getelementptr inbounds float, ptr %x2, i64 %i
  %x23 = load float, ptr %19, align 4, !llvm.access.group !0
  %s4 = call float @calcjit_op_Add(float %s, float %x23)
  %20 = getelementptr inbounds float, ptr %x3, i64 %i
  %x35 = load float, ptr %20, align 4, !llvm.access.group !0
  %s6 = call float @calcjit_op_Add(float %s4, float %x35)
  %21 = getelementptr inbounds float, ptr %x4, i64 %i
  %x47 = load float, ptr %21, align 4, !llvm.access.group !0
  %s8 = call float @calcjit_op_Add(float %s6, float %x47)
  %22 = getelementptr inbounds float, ptr %x5, i64 %i
  %x59 = load float, ptr %22, align 4, !llvm.access.group !0
  %s10 = call float @calcjit_op_Add(float %s8, float %x59)
  %23 = getelementptr inbounds float, ptr %x6, i64 %i
  %x611 = load float, ptr %23, align 4, !llvm.access.group !0
  %s12 = call float @calcjit_op_Add(float %s10, float %x611)
  %24 = getelementptr inbounds float, ptr %x7, i64 %i
  %x713 = load float, ptr %24, align 4, !llvm.access.group !0
  %s14 = call float @calcjit_op_Add(float %s12, float %x713)
  %25 = getelementptr inbounds float, ptr %x8, i64 %i
  %x815 = load float, ptr %25, align 4, !llvm.access.group !0
  %s16 = call float @calcjit_op_Add(float %s14, float %x815)
  %26 = getelementptr inbounds float, ptr %x9, i64 %i
  %x917 = load float, ptr %26, align 4, !llvm.access.group !0
  %s18 = call float @calcjit_op_Add(float %s16, float %x917)
  %canonical = call float @calcjit_canonicalize(float %s18)
  %27 = getelementptr inbounds float, ptr %out.s, i64 %i
  store float %canonical, ptr %27, align 4, !llvm.access.group !0
  %next = add nuw nsw i64 %j, 1
  %28 = icmp eq i64 %next, %length
  br i1 %28, label %stage0.done, label %stage0, !llvm.loop !1

stage0.done:                                      ; preds = %stage0
  %end = add nuw nsw i64 %block, %length
  %29 = icmp uge i64 %end, %n
  br i1 %29, label %done, label %items
}

declare float @calcjit_op_Add(float, float)

declare float @calcjit_canonicalize(float)

attributes #0 = { nounwind }

!0 = distinct !{}
!1 = distinct !{!1, !2, !3}
!2 = !{!"llvm.loop.parallel_accesses", !0}
!3 = !{!"llvm.loop.interleave.count", i32 1}
