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
  %short = icmp ult i64 %n, 16
  br i1 %short, label %done, label %items

items:                                            ; preds = %entry, %stage1.done
  %from = phi i64 [ %end, %stage1.done ], [ 0, %entry ]
  %rest = sub nuw nsw i64 %n, %from
  %2 = add nuw nsw i64 %rest, 15
  %3 = and i64 %2, -16
  %up = tail call i64 @llvm.umin.i64(i64 %3, i64 512)
  %fits.not = icmp ugt i64 %up, %n
  %back = sub nuw nsw i64 %n, %up
  %4 = tail call i64 @llvm.umin.i64(i64 %back, i64 %from)
  %block = select i1 %fits.not, i64 %from, i64 %4
  %5 = select i1 %fits.not, i64 %rest, i64 %up
  %length = and i64 %5, -16
  %no.items = icmp eq i64 %length, 0
  br i1 %no.items, label %done, label %vector.body19

vector.body19:                                    ; preds = %items, %vector.body19
  %index20 = phi i64 [ %index.next23, %vector.body19 ], [ 0, %items ]
  %6 = add nuw nsw i64 %index20, %block
  %7 = getelementptr inbounds float, ptr %bm25, i64 %6
  %wide.load21 = load <8 x float>, ptr %7, align 4, !llvm.access.group !5
  %8 = fmul <8 x float> %wide.load21, <float 0x3FB99999A0000000, float 0x3FB99999A0000000, float 0x3FB99999A0000000, float 0x3FB99999A0000000, float 0x3FB99999A0000000, float 0x3FB99999A0000000, float 0x3FB99999A0000000, float 0x3FB99999A0000000>
  %9 = getelementptr inbounds float, ptr %title_match, i64 %6
  %wide.load22 = load <8 x float>, ptr %9, align 4, !llvm.access.group !5
  %10 = fadd <8 x float> %8, %wide.load22
  %11 = getelementptr inbounds float, ptr %stage, i64 %index20
  store <8 x float> %10, ptr %11, align 4, !llvm.access.group !5
  %index.next23 = add nuw i64 %index20, 8
  %12 = icmp eq i64 %index.next23, %length
  br i1 %12, label %stage0.done, label %vector.body19, !llvm.loop !6

done:                                             ; preds = %stage1.done, %items, %entry
  ret void

stage0.done:                                      ; preds = %vector.body19
  tail call void @calcjit_col_Sigmoid_avx2(ptr nonnull %stage, ptr nonnull %stage, i64 %length) #3
  br label %vector.body

vector.body:                                      ; preds = %vector.body, %stage0.done
  %index = phi i64 [ 0, %stage0.done ], [ %index.next, %vector.body ]
  %13 = add nuw nsw i64 %index, %block
  %14 = getelementptr inbounds float, ptr %stage, i64 %index
  %wide.load = load <8 x float>, ptr %14, align 4, !llvm.access.group !5
  %15 = fcmp uno <8 x float> %wide.load, zeroinitializer
  %16 = select <8 x i1> %15, <8 x float> <float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000>, <8 x float> %wide.load
  %17 = getelementptr inbounds float, ptr %out.relevance, i64 %13
  store <8 x float> %16, ptr %17, align 4, !llvm.access.group !5
  %wide.load10 = load <8 x float>, ptr %14, align 4, !llvm.access.group !5
  %18 = getelementptr inbounds float, ptr %out.relevance1, i64 %13
  store <8 x float> %wide.load10, ptr %18, align 4, !llvm.access.group !5
  %index.next = add nuw i64 %index, 8
  %19 = icmp eq i64 %index.next, %length
  br i1 %19, label %stage1.done, label %vector.body, !llvm.loop !10

stage1.done:                                      ; preds = %vector.body
  %end = add nuw nsw i64 %block, %length
  %.not = icmp ult i64 %end, %n
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
!10 = distinct !{!10, !7, !8, !9}

; ---- region 'gap..ctr' ----
; ModuleID = 'calcjit.gap..ctr'
source_filename = "calcjit.gap..ctr"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nofree nosync nounwind memory(readwrite, inaccessiblemem: none)
define void @calcjit.gap..ctr(ptr noalias nocapture readonly %reads, ptr noalias nocapture readonly %scalars, ptr noalias nocapture readonly %writes, i64 %n, ptr noalias nocapture readnone %stage) local_unnamed_addr #0 {
entry:
  %relevance = load ptr, ptr %reads, align 8
  %0 = getelementptr inbounds ptr, ptr %reads, i64 1
  %clicks = load ptr, ptr %0, align 8
  %gap = load float, ptr %scalars, align 4
  %1 = getelementptr inbounds float, ptr %scalars, i64 1
  %ctr = load float, ptr %1, align 4
  %out.gap = load ptr, ptr %writes, align 8
  %2 = getelementptr inbounds ptr, ptr %writes, i64 1
  %out.gap1 = load ptr, ptr %2, align 8
  %3 = getelementptr inbounds ptr, ptr %writes, i64 2
  %out.ctr = load ptr, ptr %3, align 8
  %short = icmp ult i64 %n, 16
  br i1 %short, label %done, label %items.preheader

items.preheader:                                  ; preds = %entry
  %broadcast.splatinsert = insertelement <8 x float> poison, float %gap, i64 0
  %broadcast.splat = shufflevector <8 x float> %broadcast.splatinsert, <8 x float> poison, <8 x i32> zeroinitializer
  %broadcast.splatinsert8 = insertelement <8 x float> poison, float %ctr, i64 0
  %broadcast.splat9 = shufflevector <8 x float> %broadcast.splatinsert8, <8 x float> poison, <8 x i32> zeroinitializer
  br label %items

items:                                            ; preds = %items.preheader, %stage0.done
  %from = phi i64 [ %end, %stage0.done ], [ 0, %items.preheader ]
  %rest = sub nuw nsw i64 %n, %from
  %4 = add nuw nsw i64 %rest, 15
  %5 = and i64 %4, -16
  %up = tail call i64 @llvm.umin.i64(i64 %5, i64 512)
  %fits.not = icmp ugt i64 %up, %n
  %back = sub nuw nsw i64 %n, %up
  %6 = tail call i64 @llvm.umin.i64(i64 %back, i64 %from)
  %block = select i1 %fits.not, i64 %from, i64 %6
  %7 = select i1 %fits.not, i64 %rest, i64 %up
  %length = and i64 %7, -16
  %no.items = icmp eq i64 %length, 0
  br i1 %no.items, label %done, label %vector.body

vector.body:                                      ; preds = %items, %vector.body
  %index = phi i64 [ %index.next, %vector.body ], [ 0, %items ]
  %8 = add nuw nsw i64 %index, %block
  %9 = getelementptr inbounds float, ptr %relevance, i64 %8
  %wide.load = load <8 x float>, ptr %9, align 4, !llvm.access.group !5
  %10 = fsub <8 x float> %broadcast.splat, %wide.load
  %11 = fcmp uno <8 x float> %10, zeroinitializer
  %12 = select <8 x i1> %11, <8 x float> <float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000>, <8 x float> %10
  %13 = getelementptr inbounds float, ptr %out.gap, i64 %8
  store <8 x float> %12, ptr %13, align 4, !llvm.access.group !5
  %14 = getelementptr inbounds float, ptr %out.gap1, i64 %8
  store <8 x float> %10, ptr %14, align 4, !llvm.access.group !5
  %15 = getelementptr inbounds float, ptr %clicks, i64 %8
  %wide.load7 = load <8 x float>, ptr %15, align 4, !llvm.access.group !5
  %16 = fdiv <8 x float> %wide.load7, %broadcast.splat9
  %17 = fcmp uno <8 x float> %16, zeroinitializer
  %18 = select <8 x i1> %17, <8 x float> <float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000>, <8 x float> %16
  %19 = getelementptr inbounds float, ptr %out.ctr, i64 %8
  store <8 x float> %18, ptr %19, align 4, !llvm.access.group !5
  %index.next = add nuw i64 %index, 8
  %20 = icmp eq i64 %index.next, %length
  br i1 %20, label %stage0.done, label %vector.body, !llvm.loop !6

done:                                             ; preds = %stage0.done, %items, %entry
  ret void

stage0.done:                                      ; preds = %vector.body
  %end = add nuw nsw i64 %block, %length
  %.not = icmp ult i64 %end, %n
  br i1 %.not, label %items, label %done
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.umin.i64(i64, i64) #1

attributes #0 = { nofree nosync nounwind memory(readwrite, inaccessiblemem: none) "target-cpu"="x86-64-v3" }
attributes #1 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }

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
