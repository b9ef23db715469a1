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

@llvm.compiler.used = appending global [2 x ptr] [ptr @_ZGVbN4v_calcjit_vec_Sigmoid, ptr @_ZGVdN8v_calcjit_vec_Sigmoid], section "llvm.metadata"

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

items:                                            ; preds = %items, %entry
  %i = phi i64 [ 0, %entry ], [ %next, %items ]
  %4 = getelementptr inbounds float, ptr %bm25, i64 %i
  %bm252 = load float, ptr %4, align 4, !llvm.access.group !0
  %relevance = call float @calcjit_op_Mul(float %bm252, float 0x3FB99999A0000000)
  %5 = getelementptr inbounds float, ptr %title_match, i64 %i
  %title_match3 = load float, ptr %5, align 4, !llvm.access.group !0
  %relevance4 = call float @calcjit_op_Add(float %relevance, float %title_match3)
  %relevance5 = call float @calcjit_vec_Sigmoid(float %relevance4) #1
  %canonical = call float @calcjit_canonicalize(float %relevance5)
  %6 = getelementptr inbounds float, ptr %out.relevance, i64 %i
  store float %canonical, ptr %6, align 4, !llvm.access.group !0
  %7 = getelementptr inbounds float, ptr %out.relevance1, i64 %i
  store float %relevance5, ptr %7, align 4, !llvm.access.group !0
  %next = add nuw nsw i64 %i, 1
  %last = icmp eq i64 %next, %count
  br i1 %last, label %done, label %items, !llvm.loop !1

done:                                             ; preds = %items, %entry
  ret void
}

declare float @calcjit_op_Mul(float, float)

declare float @calcjit_op_Add(float, float)

declare <4 x float> @_ZGVbN4v_calcjit_vec_Sigmoid(<4 x float>)

declare <8 x float> @_ZGVdN8v_calcjit_vec_Sigmoid(<8 x float>)

declare float @calcjit_vec_Sigmoid(float)

declare float @calcjit_canonicalize(float)

attributes #0 = { nounwind }
attributes #1 = { nounwind willreturn memory(none) "vector-function-abi-variant"="_ZGVbN4v_calcjit_vec_Sigmoid(_ZGVbN4v_calcjit_vec_Sigmoid),_ZGVdN8v_calcjit_vec_Sigmoid(_ZGVdN8v_calcjit_vec_Sigmoid)" }

!0 = distinct !{}
!1 = distinct !{!1, !2, !3}
!2 = !{!"llvm.loop.parallel_accesses", !0}
!3 = !{!"llvm.loop.interleave.count", i32 1}

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
