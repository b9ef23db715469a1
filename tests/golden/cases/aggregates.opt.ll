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
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nounwind
define void @calcjit.relevance(ptr noalias nocapture readonly %reads, ptr noalias nocapture readonly %scalars, ptr noalias nocapture readonly %writes, i64 %n, ptr noalias nocapture %stage) local_unnamed_addr #0 {
entry:
  %bm25 = load ptr, ptr %reads, align 8
  %0 = getelementptr inbounds ptr, ptr %reads, i64 1
  %title_match = load ptr, ptr %0, align 8
  %out.relevance = load ptr, ptr %writes, align 8
  %1 = getelementptr inbounds ptr, ptr %writes, i64 1
  %out.relevance1 = load ptr, ptr %1, align 8
  %count = and i64 %n, -16
  %empty = icmp eq i64 %count, 0
  br i1 %empty, label %done, label %items

items:                                            ; preds = %entry, %stage1.done
  %indvar = phi i64 [ %indvar.next, %stage1.done ], [ 0, %entry ]
  %block = phi i64 [ %next.block, %stage1.done ], [ 0, %entry ]
  %2 = shl i64 %indvar, 9
  %3 = sub i64 %count, %2
  %umin11 = tail call i64 @llvm.umin.i64(i64 %3, i64 512)
  %4 = shl i64 %indvar, 9
  %5 = sub i64 %count, %4
  %umin = tail call i64 @llvm.umin.i64(i64 %5, i64 512)
  %rest = sub nuw nsw i64 %count, %block
  %6 = tail call i64 @llvm.umin.i64(i64 %rest, i64 512)
  %min.iters.check14 = icmp eq i64 %umin11, 0
  br i1 %min.iters.check14, label %stage0, label %vector.body20

vector.body20:                                    ; preds = %items, %vector.body20
  %index21 = phi i64 [ %index.next24, %vector.body20 ], [ 0, %items ]
  %7 = add nuw nsw i64 %index21, %block
  %8 = getelementptr inbounds float, ptr %bm25, i64 %7
  %wide.load22 = load <8 x float>, ptr %8, align 4, !llvm.access.group !5
  %9 = fmul <8 x float> %wide.load22, <float 0x3FB99999A0000000, float 0x3FB99999A0000000, float 0x3FB99999A0000000, float 0x3FB99999A0000000, float 0x3FB99999A0000000, float 0x3FB99999A0000000, float 0x3FB99999A0000000, float 0x3FB99999A0000000>
  %10 = getelementptr inbounds float, ptr %title_match, i64 %7
  %wide.load23 = load <8 x float>, ptr %10, align 4, !llvm.access.group !5
  %11 = fadd <8 x float> %9, %wide.load23
  %12 = getelementptr inbounds float, ptr %stage, i64 %index21
  store <8 x float> %11, ptr %12, align 4, !llvm.access.group !5
  %index.next24 = add nuw i64 %index21, 8
  %13 = icmp eq i64 %index.next24, %umin11
  br i1 %13, label %stage0.done, label %vector.body20, !llvm.loop !6

done:                                             ; preds = %stage1.done, %entry
  ret void

stage0:                                           ; preds = %items, %stage0
  %j = phi i64 [ %next, %stage0 ], [ 0, %items ]
  %i = add nuw nsw i64 %j, %block
  %14 = getelementptr inbounds float, ptr %bm25, i64 %i
  %bm252 = load float, ptr %14, align 4, !llvm.access.group !5
  %15 = fmul float %bm252, 0x3FB99999A0000000
  %16 = getelementptr inbounds float, ptr %title_match, i64 %i
  %title_match3 = load float, ptr %16, align 4, !llvm.access.group !5
  %17 = fadd float %15, %title_match3
  %18 = getelementptr inbounds float, ptr %stage, i64 %j
  store float %17, ptr %18, align 4, !llvm.access.group !5
  %next = add nuw nsw i64 %j, 1
  %19 = icmp eq i64 %next, %6
  br i1 %19, label %stage0.done, label %stage0, !llvm.loop !10

stage0.done:                                      ; preds = %vector.body20, %stage0
  tail call void @calcjit_col_Sigmoid_avx2(ptr nonnull %stage, ptr nonnull %stage, i64 %6) #3
  %min.iters.check = icmp eq i64 %umin, 0
  br i1 %min.iters.check, label %stage1, label %vector.body

vector.body:                                      ; preds = %stage0.done, %vector.body
  %index = phi i64 [ %index.next, %vector.body ], [ 0, %stage0.done ]
  %20 = add nuw nsw i64 %index, %block
  %21 = getelementptr inbounds float, ptr %stage, i64 %index
  %wide.load = load <8 x float>, ptr %21, align 4, !llvm.access.group !5
  %22 = fcmp uno <8 x float> %wide.load, zeroinitializer
  %23 = select <8 x i1> %22, <8 x float> <float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000>, <8 x float> %wide.load
  %24 = getelementptr inbounds float, ptr %out.relevance, i64 %20
  store <8 x float> %23, ptr %24, align 4, !llvm.access.group !5
  %wide.load10 = load <8 x float>, ptr %21, align 4, !llvm.access.group !5
  %25 = getelementptr inbounds float, ptr %out.relevance1, i64 %20
  store <8 x float> %wide.load10, ptr %25, align 4, !llvm.access.group !5
  %index.next = add nuw i64 %index, 8
  %26 = icmp eq i64 %index.next, %umin
  br i1 %26, label %stage1.done, label %vector.body, !llvm.loop !11

stage1:                                           ; preds = %stage0.done, %stage1
  %j5 = phi i64 [ %next9, %stage1 ], [ 0, %stage0.done ]
  %i6 = add nuw nsw i64 %j5, %block
  %27 = getelementptr inbounds float, ptr %stage, i64 %j5
  %relevance7 = load float, ptr %27, align 4, !llvm.access.group !5
  %28 = fcmp uno float %relevance7, 0.000000e+00
  %29 = select i1 %28, float 0x7FF8000000000000, float %relevance7
  %30 = getelementptr inbounds float, ptr %out.relevance, i64 %i6
  store float %29, ptr %30, align 4, !llvm.access.group !5
  %relevance8 = load float, ptr %27, align 4, !llvm.access.group !5
  %31 = getelementptr inbounds float, ptr %out.relevance1, i64 %i6
  store float %relevance8, ptr %31, align 4, !llvm.access.group !5
  %next9 = add nuw nsw i64 %j5, 1
  %32 = icmp eq i64 %next9, %6
  br i1 %32, label %stage1.done, label %stage1, !llvm.loop !12

stage1.done:                                      ; preds = %vector.body, %stage1
  %next.block = add nuw nsw i64 %block, 512
  %.not = icmp ult i64 %next.block, %count
  %indvar.next = add i64 %indvar, 1
  br i1 %.not, label %items, label %done
}

declare void @calcjit_col_Sigmoid_avx2(ptr, ptr, i64) local_unnamed_addr #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.umin.i64(i64, i64) #2

attributes #0 = { nounwind "target-cpu"="x86-64-v3" }
attributes #1 = { "target-cpu"="x86-64-v3" }
attributes #2 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #3 = { nounwind }

!llvm.linker.options = !{}
!llvm.ident = !{!0}
!llvm.module.flags = !{!1, !2, !3, !4}

!0 = !{!"Debian clang version 16.0.6 (15~deb12u1)"}
!1 = !{i32 1, !"wchar_size", i32 4}
!2 = !{i32 8, !"PIC Level", i32 2}
!3 = !{i32 7, !"PIE Level", i32 2}
!4 = !{i32 7, !"uwtable", i32 2}
!5 = distinct !{}
!6 = distinct !{!6, !7, !8, !9}
!7 = !{!"llvm.loop.parallel_accesses", !5}
!8 = !{!"llvm.loop.isvectorized", i32 1}
!9 = !{!"llvm.loop.unroll.runtime.disable"}
!10 = distinct !{!10, !7, !9, !8}
!11 = distinct !{!11, !7, !8, !9}
!12 = distinct !{!12, !7, !9, !8}

; ---- region 'share..score' ----
; ModuleID = 'calcjit.share..score'
source_filename = "calcjit.share..score"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, inaccessiblemem: none)
define void @calcjit.share..score(ptr noalias nocapture readonly %reads, ptr noalias nocapture readonly %scalars, ptr noalias nocapture readonly %writes, i64 %n, ptr noalias nocapture readnone %stage) local_unnamed_addr #0 {
entry:
  %relevance = load ptr, ptr %reads, align 8
  %0 = getelementptr inbounds ptr, ptr %reads, i64 1
  %top = load ptr, ptr %0, align 8
  %1 = getelementptr inbounds ptr, ptr %reads, i64 2
  %z = load ptr, ptr %1, align 8
  %out.share = load ptr, ptr %writes, align 8
  %2 = getelementptr inbounds ptr, ptr %writes, i64 1
  %out.score = load ptr, ptr %2, align 8
  %count = and i64 %n, -16
  %empty = icmp eq i64 %count, 0
  br i1 %empty, label %done, label %vector.ph

vector.ph:                                        ; preds = %entry
  %3 = getelementptr inbounds float, ptr %scalars, i64 1
  %boost = load float, ptr %3, align 4
  %share = load float, ptr %scalars, align 4
  %broadcast.splatinsert = insertelement <8 x float> poison, float %share, i64 0
  %broadcast.splat = shufflevector <8 x float> %broadcast.splatinsert, <8 x float> poison, <8 x i32> zeroinitializer
  %broadcast.splatinsert10 = insertelement <8 x float> poison, float %boost, i64 0
  %broadcast.splat11 = shufflevector <8 x float> %broadcast.splatinsert10, <8 x float> poison, <8 x i32> zeroinitializer
  br label %vector.body

vector.body:                                      ; preds = %vector.body, %vector.ph
  %index = phi i64 [ 0, %vector.ph ], [ %index.next, %vector.body ]
  %4 = getelementptr inbounds float, ptr %relevance, i64 %index
  %wide.load = load <8 x float>, ptr %4, align 4, !llvm.access.group !5
  %5 = fdiv <8 x float> %wide.load, %broadcast.splat
  %6 = fcmp uno <8 x float> %5, zeroinitializer
  %7 = select <8 x i1> %6, <8 x float> <float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000>, <8 x float> %5
  %8 = getelementptr inbounds float, ptr %out.share, i64 %index
  store <8 x float> %7, ptr %8, align 4, !llvm.access.group !5
  %9 = fmul <8 x float> %broadcast.splat11, %5
  %10 = getelementptr inbounds float, ptr %top, i64 %index
  %wide.load12 = load <8 x float>, ptr %10, align 4, !llvm.access.group !5
  %11 = fcmp one <8 x float> %wide.load12, zeroinitializer
  %12 = select <8 x i1> %11, <8 x float> <float 0x3FB99999A0000000, float 0x3FB99999A0000000, float 0x3FB99999A0000000, float 0x3FB99999A0000000, float 0x3FB99999A0000000, float 0x3FB99999A0000000, float 0x3FB99999A0000000, float 0x3FB99999A0000000>, <8 x float> zeroinitializer
  %13 = fadd <8 x float> %9, %12
  %14 = getelementptr inbounds float, ptr %z, i64 %index
  %wide.load13 = load <8 x float>, ptr %14, align 4, !llvm.access.group !5
  %15 = fmul <8 x float> %wide.load13, <float 0x3F847AE140000000, float 0x3F847AE140000000, float 0x3F847AE140000000, float 0x3F847AE140000000, float 0x3F847AE140000000, float 0x3F847AE140000000, float 0x3F847AE140000000, float 0x3F847AE140000000>
  %16 = fsub <8 x float> %13, %15
  %17 = fcmp uno <8 x float> %16, zeroinitializer
  %18 = select <8 x i1> %17, <8 x float> <float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000>, <8 x float> %16
  %19 = getelementptr inbounds float, ptr %out.score, i64 %index
  store <8 x float> %18, ptr %19, align 4, !llvm.access.group !5
  %index.next = add nuw i64 %index, 8
  %20 = icmp eq i64 %index.next, %count
  br i1 %20, label %done, label %vector.body, !llvm.loop !6

done:                                             ; preds = %vector.body, %entry
  ret void
}

attributes #0 = { nofree norecurse nosync nounwind memory(readwrite, inaccessiblemem: none) "target-cpu"="x86-64-v3" }

!llvm.linker.options = !{}
!llvm.ident = !{!0}
!llvm.module.flags = !{!1, !2, !3, !4}

!0 = !{!"Debian clang version 16.0.6 (15~deb12u1)"}
!1 = !{i32 1, !"wchar_size", i32 4}
!2 = !{i32 8, !"PIC Level", i32 2}
!3 = !{i32 7, !"PIE Level", i32 2}
!4 = !{i32 7, !"uwtable", i32 2}
!5 = distinct !{}
!6 = distinct !{!6, !7, !8, !9}
!7 = !{!"llvm.loop.parallel_accesses", !5}
!8 = !{!"llvm.loop.isvectorized", i32 1}
!9 = !{!"llvm.loop.unroll.runtime.disable"}
