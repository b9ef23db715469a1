program: 3 phases, 6 columns, 13 scalars (those not listed start at 0)
  s7 = 0.1
phase 0
  region 'relevance': 3 nodes, for each item i:
    v0 = Mul in1[i], 0.1   ; %12
    v1 = Add v0, in2[i]   ; %14
    v2 = Sigmoid v1   ; %15
    out7[i] = v2 (NaN made canonical)
    col2[i] = v2
phase 1
  step Rank col5 = col2   ; %19
  step BatchSum s9 = in3   ; %21
  statistics of in0: one pass and the deviations
    BatchMean s0   ; %1
    BatchStd s1   ; %2
    Zscore col0   ; %3
    MinMaxScale col1   ; %4
    BatchMax s2   ; %5
    BatchMin s3   ; %6
    BatchSum s5   ; %8
    BatchCount s6   ; %9
  statistics of col2: one pass
    Softmax col3   ; %16
    BatchMax s8   ; %17
    BatchMin s11   ; %24
  once Sub s4 = s2, s3   ; %7
  region 'gap..ctr': 2 nodes, for each item i:
    v0 = Sub s8, col2[i]   ; %18
    v1 = Div in3[i], s9   ; %22
    out9[i] = v0 (NaN made canonical)
    col4[i] = v0
    out11[i] = v1 (NaN made canonical)
  store out2 = col0 (NaN made canonical)
  store out3 = col1 (NaN made canonical)
  store out8 = col3 (NaN made canonical)
  store out10 = col5 (NaN made canonical)
phase 2
  step BatchSum s10 = col4   ; %23
  once Add s12 = s10, s11   ; %25
fill out0 = s0
fill out1 = s1
fill out4 = s4
fill out5 = s5
fill out6 = s6
fill out12 = s12

; ---- region 'relevance' ----
; ModuleID = 'calcjit.relevance'
source_filename = "calcjit.relevance"

; Function Attrs: nounwind
define void @calcjit.relevance(ptr noalias nocapture readonly %reads, ptr noalias nocapture readonly %scalars, ptr noalias nocapture readonly %writes, i64 %n, ptr noalias nocapture %stage) #0 {
entry:
  %0 = getelementptr inbounds ptr, ptr %reads, i64 0
  %bm25 = load ptr, ptr %0, align 8
  %1 = getelementptr inbounds ptr, ptr %reads, i64 1
  %title_match = load ptr, ptr %1, align 8
  %2 = getelementptr inbounds ptr, ptr %writes, i64 0
  %out.relevance = load ptr, ptr %2, align 8
  %3 = getelementptr inbounds ptr, ptr %writes, i64 1
  %out.relevance1 = load ptr, ptr %3, align 8
  %count = and i64 %n, -16
  %empty = icmp eq i64 %count, 0
  br i1 %empty, label %done, label %items

items:                                            ; preds = %stage1.done, %entry
  %block = phi i64 [ 0, %entry ], [ %next.block, %stage1.done ]
  %rest = sub nuw nsw i64 %count, %block
  %4 = icmp ult i64 %rest, 512
  %5 = select i1 %4, i64 %rest, i64 512
  %length = and i64 %5, -16
  br label %stage0

done:                                             ; preds = %stage1.done, %entry
  ret void

stage0:                                           ; preds = %stage0, %items
  %j = phi i64 [ 0, %items ], [ %next, %stage0 ]
  %i = add nuw nsw i64 %block, %j
  %6 = getelementptr inbounds float, ptr %bm25, i64 %i
  %bm252 = load float, ptr %6, align 4, !llvm.access.group !0
  %relevance = call float @calcjit_op_Mul(float %bm252, float 0x3FB99999A0000000)
  %7 = getelementptr inbounds float, ptr %title_match, i64 %i
  %title_match3 = load float, ptr %7, align 4, !llvm.access.group !0
  %relevance4 = call float @calcjit_op_Add(float %relevance, float %title_match3)
  %8 = add nuw nsw i64 0, %j
  %9 = getelementptr inbounds float, ptr %stage, i64 %8
  store float %relevance4, ptr %9, align 4, !llvm.access.group !0
  %next = add nuw nsw i64 %j, 1
  %10 = icmp eq i64 %next, %length
  br i1 %10, label %stage0.done, label %stage0, !llvm.loop !1

stage0.done:                                      ; preds = %stage0
  %11 = getelementptr inbounds float, ptr %stage, i64 0
  %12 = getelementptr inbounds float, ptr %stage, i64 0
  call void @calcjit_col_Sigmoid_avx2(ptr %11, ptr %12, i64 %length) #0
  br label %stage1

stage1:                                           ; preds = %stage1, %stage0.done
  %j5 = phi i64 [ 0, %stage0.done ], [ %next9, %stage1 ]
  %i6 = add nuw nsw i64 %block, %j5
  %13 = add nuw nsw i64 0, %j5
  %14 = getelementptr inbounds float, ptr %stage, i64 %13
  %relevance7 = load float, ptr %14, align 4, !llvm.access.group !0
  %canonical = call float @calcjit_canonicalize(float %relevance7)
  %15 = getelementptr inbounds float, ptr %out.relevance, i64 %i6
  store float %canonical, ptr %15, align 4, !llvm.access.group !0
  %16 = add nuw nsw i64 0, %j5
  %17 = getelementptr inbounds float, ptr %stage, i64 %16
  %relevance8 = load float, ptr %17, align 4, !llvm.access.group !0
  %18 = getelementptr inbounds float, ptr %out.relevance1, i64 %i6
  store float %relevance8, ptr %18, align 4, !llvm.access.group !0
  %next9 = add nuw nsw i64 %j5, 1
  %19 = icmp eq i64 %next9, %length
  br i1 %19, label %stage1.done, label %stage1, !llvm.loop !4

stage1.done:                                      ; preds = %stage1
  %next.block = add nuw nsw i64 %block, 512
  %20 = icmp uge i64 %next.block, %count
  br i1 %20, label %done, label %items
}

declare float @calcjit_op_Mul(float, float)

declare float @calcjit_op_Add(float, float)

declare void @calcjit_col_Sigmoid_avx2(ptr, ptr, i64)

declare float @calcjit_canonicalize(float)

attributes #0 = { nounwind }

!0 = distinct !{}
!1 = distinct !{!1, !2, !3}
!2 = !{!"llvm.loop.parallel_accesses", !0}
!3 = !{!"llvm.loop.interleave.count", i32 1}
!4 = distinct !{!4, !2, !3}

; ---- region 'gap..ctr' ----
; ModuleID = 'calcjit.gap..ctr'
source_filename = "calcjit.gap..ctr"

; Function Attrs: nounwind
define void @calcjit.gap..ctr(ptr noalias nocapture readonly %reads, ptr noalias nocapture readonly %scalars, ptr noalias nocapture readonly %writes, i64 %n, ptr noalias nocapture %stage) #0 {
entry:
  %0 = getelementptr inbounds ptr, ptr %reads, i64 0
  %relevance = load ptr, ptr %0, align 8
  %1 = getelementptr inbounds ptr, ptr %reads, i64 1
  %clicks = load ptr, ptr %1, align 8
  %2 = getelementptr inbounds float, ptr %scalars, i64 0
  %gap = load float, ptr %2, align 4
  %3 = getelementptr inbounds float, ptr %scalars, i64 1
  %ctr = load float, ptr %3, align 4
  %4 = getelementptr inbounds ptr, ptr %writes, i64 0
  %out.gap = load ptr, ptr %4, align 8
  %5 = getelementptr inbounds ptr, ptr %writes, i64 1
  %out.gap1 = load ptr, ptr %5, align 8
  %6 = getelementptr inbounds ptr, ptr %writes, i64 2
  %out.ctr = load ptr, ptr %6, align 8
  %count = and i64 %n, -16
  %empty = icmp eq i64 %count, 0
  br i1 %empty, label %done, label %items

items:                                            ; preds = %items, %entry
  %i = phi i64 [ 0, %entry ], [ %next, %items ]
  %7 = getelementptr inbounds float, ptr %relevance, i64 %i
  %relevance2 = load float, ptr %7, align 4, !llvm.access.group !0
  %gap3 = call float @calcjit_op_Sub(float %gap, float %relevance2)
  %canonical = call float @calcjit_canonicalize(float %gap3)
  %8 = getelementptr inbounds float, ptr %out.gap, i64 %i
  store float %canonical, ptr %8, align 4, !llvm.access.group !0
  %9 = getelementptr inbounds float, ptr %out.gap1, i64 %i
  store float %gap3, ptr %9, align 4, !llvm.access.group !0
  %10 = getelementptr inbounds float, ptr %clicks, i64 %i
  %clicks4 = load float, ptr %10, align 4, !llvm.access.group !0
  %ctr5 = call float @calcjit_op_Div(float %clicks4, float %ctr)
  %canonical6 = call float @calcjit_canonicalize(float %ctr5)
  %11 = getelementptr inbounds float, ptr %out.ctr, i64 %i
  store float %canonical6, ptr %11, align 4, !llvm.access.group !0
  %next = add nuw nsw i64 %i, 1
  %last = icmp eq i64 %next, %count
  br i1 %last, label %done, label %items, !llvm.loop !1

done:                                             ; preds = %items, %entry
  ret void
}

declare float @calcjit_op_Sub(float, float)

declare float @calcjit_canonicalize(float)

declare float @calcjit_op_Div(float, float)

attributes #0 = { nounwind }

!0 = distinct !{}
!1 = distinct !{!1, !2, !3}
!2 = !{!"llvm.loop.parallel_accesses", !0}
!3 = !{!"llvm.loop.interleave.count", i32 1}
