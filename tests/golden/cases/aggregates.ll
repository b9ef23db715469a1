program: 2 phases, 3 columns, 5 scalars (those not listed start at 0)
  s0 = 0.1
  s4 = 0.01
  s2 = in0
phase 0
  region 'relevance': 3 nodes, for each item i:
    v0 = Mul in1[i], 0.1   ; %2
    v1 = Add v0, in2[i]   ; %4
    v2 = Sigmoid v1   ; %5
    out0[i] = v2 (NaN made canonical)
    col0[i] = v2
phase 1
  step BatchSum s1 = col0   ; %6
  step Zscore col1 = in3   ; %9
  step RankAtMost col2 = col0, bound 3   ; %10
  region 'share..score': 6 nodes, for each item i:
    v0 = Div col0[i], s1   ; %7
    v1 = Mul v0, s2   ; %12
    v2 = If col2[i], 0.1, 0   ; %14
    v3 = Add v1, v2   ; %15
    v4 = Mul col1[i], 0.01   ; %17
    v5 = Sub v3, v4   ; %18
    out1[i] = v0 (NaN made canonical)
    out4[i] = v5 (NaN made canonical)
  store out2 = col1 (NaN made canonical)
  store out3 = col2 (NaN made canonical)

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
  %short = icmp ult i64 %n, 16
  br i1 %short, label %done, label %items

items:                                            ; preds = %stage1.done, %entry
  %from = phi i64 [ 0, %entry ], [ %end, %stage1.done ]
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

done:                                             ; preds = %stage1.done, %items, %entry
  ret void

block.body:                                       ; preds = %items
  br label %stage0

stage0:                                           ; preds = %stage0, %block.body
  %j = phi i64 [ 0, %block.body ], [ %next, %stage0 ]
  %i = add nuw nsw i64 %block, %j
  %10 = getelementptr inbounds float, ptr %bm25, i64 %i
  %bm252 = load float, ptr %10, align 4, !llvm.access.group !0
  %relevance = call float @calcjit_op_Mul(float %bm252, float 0x3FB99999A0000000)
  %11 = getelementptr inbounds float, ptr %title_match, i64 %i
  %title_match3 = load float, ptr %11, align 4, !llvm.access.group !0
  %relevance4 = call float @calcjit_op_Add(float %relevance, float %title_match3)
  %12 = add nuw nsw i64 0, %j
  %13 = getelementptr inbounds float, ptr %stage, i64 %12
  store float %relevance4, ptr %13, align 4, !llvm.access.group !0
  %next = add nuw nsw i64 %j, 1
  %14 = icmp eq i64 %next, %length
  br i1 %14, label %stage0.done, label %stage0, !llvm.loop !1

stage0.done:                                      ; preds = %stage0
  %15 = getelementptr inbounds float, ptr %stage, i64 0
  %16 = getelementptr inbounds float, ptr %stage, i64 0
  call void @calcjit_col_Sigmoid_avx2(ptr %15, ptr %16, i64 %length) #0
  br label %stage1

stage1:                                           ; preds = %stage1, %stage0.done
  %j5 = phi i64 [ 0, %stage0.done ], [ %next9, %stage1 ]
  %i6 = add nuw nsw i64 %block, %j5
  %17 = add nuw nsw i64 0, %j5
  %18 = getelementptr inbounds float, ptr %stage, i64 %17
  %relevance7 = load float, ptr %18, align 4, !llvm.access.group !0
  %canonical = call float @calcjit_canonicalize(float %relevance7)
  %19 = getelementptr inbounds float, ptr %out.relevance, i64 %i6
  store float %canonical, ptr %19, align 4, !llvm.access.group !0
  %20 = add nuw nsw i64 0, %j5
  %21 = getelementptr inbounds float, ptr %stage, i64 %20
  %relevance8 = load float, ptr %21, align 4, !llvm.access.group !0
  %22 = getelementptr inbounds float, ptr %out.relevance1, i64 %i6
  store float %relevance8, ptr %22, align 4, !llvm.access.group !0
  %next9 = add nuw nsw i64 %j5, 1
  %23 = icmp eq i64 %next9, %length
  br i1 %23, label %stage1.done, label %stage1, !llvm.loop !4

stage1.done:                                      ; preds = %stage1
  %end = add nuw nsw i64 %block, %length
  %24 = icmp uge i64 %end, %n
  br i1 %24, label %done, label %items
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

; ---- region 'share..score' ----
; ModuleID = 'calcjit.share..score'
source_filename = "calcjit.share..score"

; Function Attrs: nounwind
define void @calcjit.share..score(ptr noalias nocapture readonly %reads, ptr noalias nocapture readonly %scalars, ptr noalias nocapture readonly %writes, i64 %n, ptr noalias nocapture %stage) #0 {
entry:
  %0 = getelementptr inbounds ptr, ptr %reads, i64 0
  %relevance = load ptr, ptr %0, align 8
  %1 = getelementptr inbounds ptr, ptr %reads, i64 1
  %top = load ptr, ptr %1, align 8
  %2 = getelementptr inbounds ptr, ptr %reads, i64 2
  %z = load ptr, ptr %2, align 8
  %3 = getelementptr inbounds float, ptr %scalars, i64 0
  %share = load float, ptr %3, align 4
  %4 = getelementptr inbounds float, ptr %scalars, i64 1
  %boost = load float, ptr %4, align 4
  %5 = getelementptr inbounds ptr, ptr %writes, i64 0
  %out.share = load ptr, ptr %5, align 8
  %6 = getelementptr inbounds ptr, ptr %writes, i64 1
  %out.score = load ptr, ptr %6, align 8
  %short = icmp ult i64 %n, 16
  br i1 %short, label %done, label %items

items:                                            ; preds = %stage0.done, %entry
  %from = phi i64 [ 0, %entry ], [ %end, %stage0.done ]
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

done:                                             ; preds = %stage0.done, %items, %entry
  ret void

block.body:                                       ; preds = %items
  br label %stage0

stage0:                                           ; preds = %stage0, %block.body
  %j = phi i64 [ 0, %block.body ], [ %next, %stage0 ]
  %i = add nuw nsw i64 %block, %j
  %13 = getelementptr inbounds float, ptr %relevance, i64 %i
  %relevance1 = load float, ptr %13, align 4, !llvm.access.group !0
  %share2 = call float @calcjit_op_Div(float %relevance1, float %share)
  %canonical = call float @calcjit_canonicalize(float %share2)
  %14 = getelementptr inbounds float, ptr %out.share, i64 %i
  store float %canonical, ptr %14, align 4, !llvm.access.group !0
  %score = call float @calcjit_op_Mul(float %share2, float %boost)
  %15 = getelementptr inbounds float, ptr %top, i64 %i
  %top3 = load float, ptr %15, align 4, !llvm.access.group !0
  %score4 = call float @calcjit_op_If(float %top3, float 0x3FB99999A0000000, float 0.000000e+00)
  %score5 = call float @calcjit_op_Add(float %score, float %score4)
  %16 = getelementptr inbounds float, ptr %z, i64 %i
  %z6 = load float, ptr %16, align 4, !llvm.access.group !0
  %score7 = call float @calcjit_op_Mul(float %z6, float 0x3F847AE140000000)
  %score8 = call float @calcjit_op_Sub(float %score5, float %score7)
  %canonical9 = call float @calcjit_canonicalize(float %score8)
  %17 = getelementptr inbounds float, ptr %out.score, i64 %i
  store float %canonical9, ptr %17, align 4, !llvm.access.group !0
  %next = add nuw nsw i64 %j, 1
  %18 = icmp eq i64 %next, %length
  br i1 %18, label %stage0.done, label %stage0, !llvm.loop !1

stage0.done:                                      ; preds = %stage0
  %end = add nuw nsw i64 %block, %length
  %19 = icmp uge i64 %end, %n
  br i1 %19, label %done, label %items
}

declare float @calcjit_op_Div(float, float)

declare float @calcjit_canonicalize(float)

declare float @calcjit_op_Mul(float, float)

declare float @calcjit_op_If(float, float, float)

declare float @calcjit_op_Add(float, float)

declare float @calcjit_op_Sub(float, float)

attributes #0 = { nounwind }

!0 = distinct !{}
!1 = distinct !{!1, !2, !3}
!2 = !{!"llvm.loop.parallel_accesses", !0}
!3 = !{!"llvm.loop.interleave.count", i32 1}
