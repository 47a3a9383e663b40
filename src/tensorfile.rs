//! Named tensors in safetensors files: reading any float dtype as f32 (f32, f16, bf16, f64) and
//! integer tensors as i64; writing f32 / f16 / i64. Every error names the tensor.

use crate::error::{BertError, Result};
use ndarray::{ArrayD, IxDyn};
use safetensors::tensor::{Dtype, SafeTensors, TensorView, View};
use std::borrow::Cow;
use std::collections::HashMap;

/// A tensor to write.
#[derive(Clone, Debug)]
pub enum Tensor {
    F32(ArrayD<f32>),
    /// Half precision: half the bytes of f32 (the page's download), ~3 significant digits.
    F16(ArrayD<half::f16>),
    I64(ArrayD<i64>),
}

impl View for &Tensor {
    fn dtype(&self) -> Dtype {
        match self {
            Tensor::F32(_) => Dtype::F32,
            Tensor::F16(_) => Dtype::F16,
            Tensor::I64(_) => Dtype::I64,
        }
    }
    fn shape(&self) -> &[usize] {
        match self {
            Tensor::F32(a) => a.shape(),
            Tensor::F16(a) => a.shape(),
            Tensor::I64(a) => a.shape(),
        }
    }
    fn data(&self) -> Cow<'_, [u8]> {
        let bytes: Vec<u8> = match self {
            Tensor::F32(a) => a.iter().flat_map(|v| v.to_le_bytes()).collect(),
            Tensor::F16(a) => a.iter().flat_map(|v| v.to_le_bytes()).collect(),
            Tensor::I64(a) => a.iter().flat_map(|v| v.to_le_bytes()).collect(),
        };
        Cow::Owned(bytes)
    }
    fn data_len(&self) -> usize {
        match self {
            Tensor::F32(a) => a.len() * 4,
            Tensor::F16(a) => a.len() * 2,
            Tensor::I64(a) => a.len() * 8,
        }
    }
}

/// Serialises `tensors` (names must be unique) with optional string metadata.
pub fn write_tensors(tensors: &[(String, Tensor)], metadata: Option<HashMap<String, String>>) -> Result<Vec<u8>> {
    safetensors::serialize(tensors.iter().map(|(n, t)| (n.as_str(), t)), metadata)
        .map_err(|e| BertError::Checkpoint(format!("cannot write safetensors: {e}")))
}

/// Parses the header and checks every offset against the buffer (no data is copied).
pub fn parse(bytes: &[u8]) -> Result<SafeTensors<'_>> {
    SafeTensors::deserialize(bytes).map_err(|e| BertError::Checkpoint(format!("not a valid safetensors file ({} bytes): {e}", bytes.len())))
}

/// Any float tensor as f32; NaN or infinite values are an error naming the tensor.
pub fn read_f32(name: &str, view: &TensorView<'_>) -> Result<ArrayD<f32>> {
    let mut out = ArrayD::zeros(IxDyn(view.shape()));
    read_f32_into(name, view, out.as_slice_mut().expect("a new array is contiguous"))?;
    Ok(out)
}

/// As `read_f32`, straight into `dest` (the tensor's elements in row-major order): a checkpoint's
/// weights are converted once, into the parameters, with no copy between.
pub fn read_f32_into(name: &str, view: &TensorView<'_>, dest: &mut [f32]) -> Result<()> {
    let d = view.data();
    let width = match view.dtype() {
        Dtype::F32 => 4,
        Dtype::F16 | Dtype::BF16 => 2,
        Dtype::F64 => 8,
        other => return Err(BertError::tensor(name, format!("dtype {other:?} is not a float type"))),
    };
    if d.len() != dest.len() * width {
        return Err(BertError::tensor(
            name,
            format!("shape {:?} does not match its data ({} bytes of {:?})", view.shape(), d.len(), view.dtype()),
        ));
    }
    match view.dtype() {
        Dtype::F32 => dest.iter_mut().zip(d.chunks_exact(4)).for_each(|(o, c)| *o = f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
        Dtype::F16 => dest.iter_mut().zip(d.chunks_exact(2)).for_each(|(o, c)| *o = f16_to_f32(u16::from_le_bytes([c[0], c[1]]))),
        Dtype::BF16 => dest.iter_mut().zip(d.chunks_exact(2)).for_each(|(o, c)| *o = half::bf16::from_le_bytes([c[0], c[1]]).to_f32()),
        _ => dest.iter_mut().zip(d.chunks_exact(8)).for_each(|(o, c)| *o = f64::from_le_bytes(c.try_into().expect("8 bytes")) as f32),
    }
    if let Some(i) = dest.iter().position(|v| !v.is_finite()) {
        return Err(BertError::tensor(name, format!("value {} at flat index {i} is not finite", dest[i])));
    }
    Ok(())
}

/// IEEE half -> single without branches (so a loop of it vectorises, also in wasm, where `half`
/// converts one value at a time): the exponent and mantissa shifted into place and rescaled by
/// 2^112 (exact for normal and subnormal halves), infinities and NaNs given f32's top exponent.
#[inline]
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h & 0x8000) as u32) << 16;
    let rest = (h & 0x7fff) as u32;
    let scaled = f32::from_bits(rest << 13) * f32::from_bits(0x7780_0000); // 2^112
    let special = if rest >= 0x7c00 { 0x7f80_0000 | (rest << 13) } else { 0 };
    f32::from_bits(scaled.to_bits() | special | sign)
}

/// Any integer tensor as i64.
pub fn read_i64(name: &str, view: &TensorView<'_>) -> Result<ArrayD<i64>> {
    let d = view.data();
    let values: Vec<i64> = match view.dtype() {
        Dtype::I64 => d.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes"))).collect(),
        Dtype::I32 => d.chunks_exact(4).map(|c| i32::from_le_bytes(c.try_into().expect("4 bytes")) as i64).collect(),
        Dtype::U8 => d.iter().map(|&v| v as i64).collect(),
        other => return Err(BertError::tensor(name, format!("dtype {other:?} is not an integer type"))),
    };
    ArrayD::from_shape_vec(IxDyn(view.shape()), values)
        .map_err(|e| BertError::tensor(name, format!("shape {:?} does not match its data: {e}", view.shape())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_half_precision() {
        let a = ArrayD::from_shape_vec(IxDyn(&[2, 3]), vec![1.0f32, -2.5, 3.25, 0.0, 1e-3, 7.0]).unwrap();
        let ids = ArrayD::from_shape_vec(IxDyn(&[2]), vec![5i64, -100]).unwrap();
        let bytes = write_tensors(&[("a".into(), Tensor::F32(a.clone())), ("ids".into(), Tensor::I64(ids.clone()))], None).unwrap();
        let st = parse(&bytes).unwrap();
        assert_eq!(read_f32("a", &st.tensor("a").unwrap()).unwrap(), a);
        assert_eq!(read_i64("ids", &st.tensor("ids").unwrap()).unwrap(), ids);
        // f16: 1.5 and -2.0
        let h: Vec<u8> = [1.5f32, -2.0].iter().flat_map(|v| half::f16::from_f32(*v).to_le_bytes()).collect();
        let v = TensorView::new(Dtype::F16, vec![2], &h).unwrap();
        assert_eq!(read_f32("h", &v).unwrap().as_slice().unwrap(), &[1.5, -2.0]);
        let h = ArrayD::from_shape_vec(IxDyn(&[3]), vec![half::f16::from_f32(0.1), half::f16::from_f32(-3.0), half::f16::MAX]).unwrap();
        let bytes = write_tensors(&[("h".into(), Tensor::F16(h.clone()))], None).unwrap();
        let st = parse(&bytes).unwrap();
        assert_eq!(st.tensor("h").unwrap().dtype(), Dtype::F16);
        assert_eq!(read_f32("h", &st.tensor("h").unwrap()).unwrap(), h.mapv(|v| v.to_f32()));
        // every half, the branch-free conversion against `half`'s
        for bits in 0..=u16::MAX {
            let (a, b) = (f16_to_f32(bits), half::f16::from_bits(bits).to_f32());
            assert!(a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()), "{bits:#06x}: {a} vs {b}");
        }
        let nan: Vec<u8> = [1.0f32, f32::NAN].iter().flat_map(|v| v.to_le_bytes()).collect();
        let v = TensorView::new(Dtype::F32, vec![2], &nan).unwrap();
        let err = read_f32("w.nan", &v).unwrap_err().to_string();
        assert!(err.contains("w.nan") && err.contains("not finite"), "{err}");
    }
}
