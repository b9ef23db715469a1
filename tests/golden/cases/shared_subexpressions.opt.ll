program: 1 phases, 0 columns, 5 scalars (those not listed start at 0)
  s0 = 0.5
  s2 = 6
  s3 = 0.25
  s4 = 0.75
  s1 = in0
phase 0
  region 'a..c': 10 nodes, for each item i:
    v0 = Abs in1[i]   ; %1
    v1 = Log1p v0   ; %2
    v2 = Mul 0.5, in2[i]   ; %5
    v3 = Add v1, v2   ; %6
    v4 = Div v1, s1   ; %8
    v5 = Add v3, v4   ; %9
    v6 = Mul v3, 0.25   ; %12
    v7 = Mul v5, 0.75   ; %14
    v8 = Add v6, v7   ; %15
    v9 = Add 6, v8   ; %16
    out0[i] = v3 (NaN made canonical)
    out1[i] = v5 (NaN made canonical)
    out2[i] = v9 (NaN made canonical)
    out3[i] = v9 (NaN made canonical)

; ---- region 'a..c' ----
; ModuleID = 'calcjit.a..c'
source_filename = "calcjit.a..c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nounwind
define void @calcjit.a..c(ptr noalias nocapture readonly %reads, ptr noalias nocapture readonly %scalars, ptr noalias nocapture readonly %writes, i64 %n, ptr noalias nocapture %stage) local_unnamed_addr #0 {
entry:
  %price = load ptr, ptr %reads, align 8
  %0 = getelementptr inbounds ptr, ptr %reads, i64 1
  %clicks = load ptr, ptr %0, align 8
  %q = load float, ptr %scalars, align 4
  %out.a = load ptr, ptr %writes, align 8
  %1 = getelementptr inbounds ptr, ptr %writes, i64 1
  %out.b = load ptr, ptr %1, align 8
  %2 = getelementptr inbounds ptr, ptr %writes, i64 2
  %out.c = load ptr, ptr %2, align 8
  %3 = getelementptr inbounds ptr, ptr %writes, i64 3
  %out.c1 = load ptr, ptr %3, align 8
  %count = and i64 %n, -16
  %empty = icmp eq i64 %count, 0
  br i1 %empty, label %done, label %items.preheader

items.preheader:                                  ; preds = %entry
  %4 = getelementptr inbounds float, ptr %stage, i64 1056
  %broadcast.splatinsert = insertelement <8 x float> poison, float %q, i64 0
  %broadcast.splat = shufflevector <8 x float> %broadcast.splatinsert, <8 x float> poison, <8 x i32> zeroinitializer
  br label %items

items:                                            ; preds = %items.preheader, %stage2.done
  %indvar = phi i64 [ 0, %items.preheader ], [ %indvar.next, %stage2.done ]
  %block = phi i64 [ 0, %items.preheader ], [ %next.block, %stage2.done ]
  %5 = shl i64 %indvar, 9
  %6 = sub i64 %count, %5
  %umin20 = tail call i64 @llvm.umin.i64(i64 %6, i64 512)
  %7 = shl i64 %indvar, 9
  %8 = sub i64 %count, %7
  %umin = tail call i64 @llvm.umin.i64(i64 %8, i64 512)
  %rest = sub nuw nsw i64 %count, %block
  %9 = tail call i64 @llvm.umin.i64(i64 %rest, i64 512)
  %min.iters.check23 = icmp eq i64 %umin20, 0
  br i1 %min.iters.check23, label %stage0, label %vector.body29

vector.body29:                                    ; preds = %items, %vector.body29
  %index30 = phi i64 [ %index.next33, %vector.body29 ], [ 0, %items ]
  %10 = add nuw nsw i64 %index30, %block
  %11 = getelementptr inbounds float, ptr %price, i64 %10
  %wide.load31 = load <8 x i32>, ptr %11, align 4, !llvm.access.group !5
  %12 = and <8 x i32> %wide.load31, <i32 2147483647, i32 2147483647, i32 2147483647, i32 2147483647, i32 2147483647, i32 2147483647, i32 2147483647, i32 2147483647>
  %13 = getelementptr inbounds float, ptr %stage, i64 %index30
  store <8 x i32> %12, ptr %13, align 4, !llvm.access.group !5
  %14 = getelementptr inbounds float, ptr %clicks, i64 %10
  %wide.load32 = load <8 x float>, ptr %14, align 4, !llvm.access.group !5
  %15 = fmul <8 x float> %wide.load32, <float 5.000000e-01, float 5.000000e-01, float 5.000000e-01, float 5.000000e-01, float 5.000000e-01, float 5.000000e-01, float 5.000000e-01, float 5.000000e-01>
  %16 = add nuw nsw i64 %index30, 528
  %17 = getelementptr inbounds float, ptr %stage, i64 %16
  store <8 x float> %15, ptr %17, align 4, !llvm.access.group !5
  %index.next33 = add nuw i64 %index30, 8
  %18 = icmp eq i64 %index.next33, %umin20
  br i1 %18, label %stage0.done, label %vector.body29, !llvm.loop !6

done:                                             ; preds = %stage2.done, %entry
  ret void

stage0:                                           ; preds = %items, %stage0
  %j = phi i64 [ %next, %stage0 ], [ 0, %items ]
  %i = add nuw nsw i64 %j, %block
  %19 = getelementptr inbounds float, ptr %price, i64 %i
  %price218 = load i32, ptr %19, align 4, !llvm.access.group !5
  %20 = and i32 %price218, 2147483647
  %21 = getelementptr inbounds float, ptr %stage, i64 %j
  store i32 %20, ptr %21, align 4, !llvm.access.group !5
  %22 = getelementptr inbounds float, ptr %clicks, i64 %i
  %clicks3 = load float, ptr %22, align 4, !llvm.access.group !5
  %23 = fmul float %clicks3, 5.000000e-01
  %24 = add nuw nsw i64 %j, 528
  %25 = getelementptr inbounds float, ptr %stage, i64 %24
  store float %23, ptr %25, align 4, !llvm.access.group !5
  %next = add nuw nsw i64 %j, 1
  %26 = icmp eq i64 %next, %9
  br i1 %26, label %stage0.done, label %stage0, !llvm.loop !10

stage0.done:                                      ; preds = %vector.body29, %stage0
  tail call void @calcjit_col_Log1p_avx2(ptr nonnull %stage, ptr nonnull %4, i64 %9) #3
  %min.iters.check = icmp eq i64 %umin, 0
  br i1 %min.iters.check, label %stage2, label %vector.body

vector.body:                                      ; preds = %stage0.done, %vector.body
  %index = phi i64 [ %index.next, %vector.body ], [ 0, %stage0.done ]
  %27 = add nuw nsw i64 %index, %block
  %28 = add nuw nsw i64 %index, 1056
  %29 = getelementptr inbounds float, ptr %stage, i64 %28
  %wide.load = load <8 x float>, ptr %29, align 4, !llvm.access.group !5
  %30 = add nuw nsw i64 %index, 528
  %31 = getelementptr inbounds float, ptr %stage, i64 %30
  %wide.load19 = load <8 x float>, ptr %31, align 4, !llvm.access.group !5
  %32 = fadd <8 x float> %wide.load, %wide.load19
  %33 = fcmp uno <8 x float> %32, zeroinitializer
  %34 = select <8 x i1> %33, <8 x float> <float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000>, <8 x float> %32
  %35 = getelementptr inbounds float, ptr %out.a, i64 %27
  store <8 x float> %34, ptr %35, align 4, !llvm.access.group !5
  %36 = fdiv <8 x float> %wide.load, %broadcast.splat
  %37 = fadd <8 x float> %36, %32
  %38 = fcmp uno <8 x float> %37, zeroinitializer
  %39 = select <8 x i1> %38, <8 x float> <float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000>, <8 x float> %37
  %40 = getelementptr inbounds float, ptr %out.b, i64 %27
  store <8 x float> %39, ptr %40, align 4, !llvm.access.group !5
  %41 = fmul <8 x float> %32, <float 2.500000e-01, float 2.500000e-01, float 2.500000e-01, float 2.500000e-01, float 2.500000e-01, float 2.500000e-01, float 2.500000e-01, float 2.500000e-01>
  %42 = fmul <8 x float> %37, <float 7.500000e-01, float 7.500000e-01, float 7.500000e-01, float 7.500000e-01, float 7.500000e-01, float 7.500000e-01, float 7.500000e-01, float 7.500000e-01>
  %43 = fadd <8 x float> %41, %42
  %44 = fadd <8 x float> %43, <float 6.000000e+00, float 6.000000e+00, float 6.000000e+00, float 6.000000e+00, float 6.000000e+00, float 6.000000e+00, float 6.000000e+00, float 6.000000e+00>
  %45 = fcmp uno <8 x float> %44, zeroinitializer
  %46 = select <8 x i1> %45, <8 x float> <float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000>, <8 x float> %44
  %47 = getelementptr inbounds float, ptr %out.c, i64 %27
  store <8 x float> %46, ptr %47, align 4, !llvm.access.group !5
  %48 = getelementptr inbounds float, ptr %out.c1, i64 %27
  store <8 x float> %46, ptr %48, align 4, !llvm.access.group !5
  %index.next = add nuw i64 %index, 8
  %49 = icmp eq i64 %index.next, %umin
  br i1 %49, label %stage2.done, label %vector.body, !llvm.loop !11

stage2:                                           ; preds = %stage0.done, %stage2
  %j5 = phi i64 [ %next17, %stage2 ], [ 0, %stage0.done ]
  %i6 = add nuw nsw i64 %j5, %block
  %50 = add nuw nsw i64 %j5, 1056
  %51 = getelementptr inbounds float, ptr %stage, i64 %50
  %a7 = load float, ptr %51, align 4, !llvm.access.group !5
  %52 = add nuw nsw i64 %j5, 528
  %53 = getelementptr inbounds float, ptr %stage, i64 %52
  %a8 = load float, ptr %53, align 4, !llvm.access.group !5
  %54 = fadd float %a7, %a8
  %55 = fcmp uno float %54, 0.000000e+00
  %56 = select i1 %55, float 0x7FF8000000000000, float %54
  %57 = getelementptr inbounds float, ptr %out.a, i64 %i6
  store float %56, ptr %57, align 4, !llvm.access.group !5
  %58 = fdiv float %a7, %q
  %59 = fadd float %58, %54
  %60 = fcmp uno float %59, 0.000000e+00
  %61 = select i1 %60, float 0x7FF8000000000000, float %59
  %62 = getelementptr inbounds float, ptr %out.b, i64 %i6
  store float %61, ptr %62, align 4, !llvm.access.group !5
  %63 = fmul float %54, 2.500000e-01
  %64 = fmul float %59, 7.500000e-01
  %65 = fadd float %63, %64
  %66 = fadd float %65, 6.000000e+00
  %67 = fcmp uno float %66, 0.000000e+00
  %68 = select i1 %67, float 0x7FF8000000000000, float %66
  %69 = getelementptr inbounds float, ptr %out.c, i64 %i6
  store float %68, ptr %69, align 4, !llvm.access.group !5
  %70 = getelementptr inbounds float, ptr %out.c1, i64 %i6
  store float %68, ptr %70, align 4, !llvm.access.group !5
  %next17 = add nuw nsw i64 %j5, 1
  %71 = icmp eq i64 %next17, %9
  br i1 %71, label %stage2.done, label %stage2, !llvm.loop !12

stage2.done:                                      ; preds = %vector.body, %stage2
  %next.block = add nuw nsw i64 %block, 512
  %.not = icmp ult i64 %next.block, %count
  %indvar.next = add i64 %indvar, 1
  br i1 %.not, label %items, label %done
}

declare void @calcjit_col_Log1p_avx2(ptr, ptr, i64) local_unnamed_addr #1

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
