//! The image budget (chapter 8.10): images are counted in bytes, not tokens.
//!
//! A base64 image weighs in the request exactly what its data string weighs (the base64
//! alphabet needs no JSON escaping), so the budget is measured on what will be serialized. Near
//! the limit (47 MiB of image data by default) the oldest images are evicted, in one batch, down
//! to a low-water mark (25 MiB) — a batch so the request prefix is not rewritten build after build.
//! Each evicted image leaves a placeholder telling the model it is gone and not to reason about
//! it from memory. A provider's own limits (Anthropic: per-image size, images per request) evict
//! too, instead of producing a payload the provider rejects. After a 413 or an invalid-image
//! error the session asks for one build with every image stripped.

use contextview_derive::ReadValue;
use std::borrow::Cow;

use serde::Serialize;

use crate::conversation::{Image, Item, Part, ToolResult, UserMessage};
use crate::provider::{Limits, Provider};

/// Image budget settings (bytes are bytes of the serialized request).
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct ImageConfig {
    /// Evict when the images in a request weigh more than this.
    pub trigger_bytes: u64,
    /// ... down to this.
    pub low_water_bytes: u64,
    /// Strip every image (the recovery build after a 413 or an invalid-image error).
    pub strip_all: bool,
}

impl Default for ImageConfig {
    fn default() -> Self {
        ImageConfig { trigger_bytes: 47 * 1024 * 1024, low_water_bytes: 25 * 1024 * 1024, strip_all: false }
    }
}

/// What the image stage did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct ImageReport {
    pub images: usize,
    /// Image bytes in the view before eviction.
    pub bytes_before: u64,
    /// Image bytes left in the request.
    pub bytes_after: u64,
    /// Item ids whose images were evicted (oldest first), one entry per image.
    pub evicted: Vec<String>,
    /// Every image was stripped (recovery build).
    pub stripped: bool,
}

/// Serialized weight of an image in a request.
pub fn image_bytes(image: &Image) -> u64 {
    match image {
        Image::Base64 { data, .. } => data.len() as u64,
        Image::Url { url } => url.len() as u64,
    }
}

/// The media type an image's own bytes say it is, read from their first bytes: recorded media
/// types are sometimes wrong (`image/jpg`, a PNG labelled JPEG), and providers check them.
pub fn sniffed_media_type(data: &str) -> Option<&'static str> {
    use base64::Engine as _;
    let head = &data.as_bytes()[..data.len().min(64) / 4 * 4];
    let bytes = base64::engine::general_purpose::STANDARD.decode(head).ok()?;
    match imagesize::image_type(&bytes).ok()? {
        imagesize::ImageType::Png => Some("image/png"),
        imagesize::ImageType::Jpeg => Some("image/jpeg"),
        imagesize::ImageType::Gif => Some("image/gif"),
        imagesize::ImageType::Webp => Some("image/webp"),
        imagesize::ImageType::Heif(_) => Some("image/heif"),
        imagesize::ImageType::Bmp => Some("image/bmp"),
        imagesize::ImageType::Tiff => Some("image/tiff"),
        // Formats no provider takes as a chat image.
        _ => None,
    }
}

/// Whether `provider` takes inline images of `media_type` (Anthropic and OpenAI: PNG, JPEG,
/// GIF, WebP; Gemini: PNG, JPEG, WebP, HEIC/HEIF).
pub fn accepts_media_type(provider: Provider, media_type: &str) -> bool {
    match provider {
        Provider::Anthropic | Provider::OpenAiChat | Provider::OpenAiResponses => {
            matches!(media_type, "image/png" | "image/jpeg" | "image/gif" | "image/webp")
        }
        Provider::Gemini => matches!(media_type, "image/png" | "image/jpeg" | "image/webp" | "image/heic" | "image/heif"),
    }
}

fn decoded_len(image: &Image) -> u64 {
    match image {
        // Length arithmetic of padded base64, no decoding needed.
        Image::Base64 { data, .. } => {
            ((data.len() as u64 / 4) * 3).saturating_sub(data.bytes().rev().take_while(|b| *b == b'=').count() as u64)
        }
        Image::Url { .. } => 0,
    }
}

fn placeholder(image: &Image, why: &str) -> Part {
    let what = match image {
        Image::Base64 { media_type, .. } => format!("{media_type}, {:.1} MB", decoded_len(image) as f64 / 1e6),
        Image::Url { url } => format!("from {url}"),
    };
    Part::text(format!(
        "[An image ({what}) was here but has been removed {why}. It is no longer visible to you: do not describe it or reason about it from memory; ask the user to share it again if it matters.]"
    ))
}

/// Applies the image budget and the provider's image limits.
pub fn budget<'a>(items: Vec<Cow<'a, Item>>, config: &ImageConfig, provider: Provider, limits: &Limits) -> (Vec<Cow<'a, Item>>, ImageReport) {
    let mut report = ImageReport::default();
    // (item index, part index, bytes) of every image, oldest first.
    let mut images: Vec<(usize, usize, u64, bool)> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let parts = match item.as_ref() {
            Item::User(m) => &m.content,
            Item::ToolResult(r) => &r.content,
            Item::Assistant(_) | Item::Reasoning(_) | Item::ToolCall(_) | Item::Native(_) => continue,
        };
        for (k, part) in parts.iter().enumerate() {
            if let Part::Image(image) = part {
                let too_big = provider == Provider::Anthropic && decoded_len(image) > limits.anthropic_max_image_bytes as u64;
                let refused = matches!(image, Image::Base64 { media_type, .. } if !accepts_media_type(provider, media_type));
                images.push((i, k, image_bytes(image), too_big || refused));
            }
        }
    }
    report.images = images.len();
    report.bytes_before = images.iter().map(|x| x.2).sum();
    let mut evict: Vec<(usize, usize, &'static str)> = Vec::new();
    if config.strip_all {
        report.stripped = !images.is_empty();
        evict.extend(images.iter().map(|&(i, k, _, _)| (i, k, "after the provider refused a request with images")));
    } else {
        evict.extend(images.iter().filter(|x| x.3).map(|&(i, k, _, _)| (i, k, "because the provider does not accept it (too large, or not a type it takes)")));
        // Replay the budget over the images in order, as if every earlier build had applied it:
        // each build evicts what the builds before it did, plus a new batch only when the kept
        // images cross the trigger again. So the request prefix holds between batches.
        let max_count = if provider == Provider::Anthropic { limits.anthropic_max_images } else { usize::MAX };
        let mut kept: std::collections::VecDeque<(usize, usize, u64)> = std::collections::VecDeque::new();
        let (mut total, mut count) = (0u64, 0usize);
        for &(i, k, bytes, too_big) in &images {
            if too_big {
                continue;
            }
            kept.push_back((i, k, bytes));
            total += bytes;
            count += 1;
            if total > config.trigger_bytes || count > max_count {
                while total > config.low_water_bytes || count > max_count {
                    let Some((i, k, bytes)) = kept.pop_front() else { break };
                    evict.push((i, k, "to keep the request within its size limit"));
                    total -= bytes;
                    count -= 1;
                }
            }
        }
    }
    if evict.is_empty() {
        report.bytes_after = report.bytes_before;
        return (items, report);
    }
    evict.sort_unstable();
    let mut out = items;
    for &(i, k, why) in &evict {
        let item = out[i].to_mut();
        let parts = match item {
            Item::User(UserMessage { content, .. }) | Item::ToolResult(ToolResult { content, .. }) => content,
            Item::Assistant(_) | Item::Reasoning(_) | Item::ToolCall(_) | Item::Native(_) => continue,
        };
        if let Part::Image(image) = &parts[k] {
            parts[k] = placeholder(image, why);
        }
        report.evicted.push(out[i].id().to_owned());
    }
    report.bytes_after = out
        .iter()
        .flat_map(|item| match item.as_ref() {
            Item::User(m) => m.content.iter(),
            Item::ToolResult(r) => r.content.iter(),
            Item::Assistant(_) | Item::Reasoning(_) | Item::ToolCall(_) | Item::Native(_) => [].iter(),
        })
        .map(|p| match p {
            Part::Image(image) => image_bytes(image),
            Part::Text { .. } => 0,
        })
        .sum();
    (out, report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoded_size_is_arithmetic_and_never_underflows() {
        let b64 = |d: &str| Image::Base64 { media_type: "image/png".into(), data: d.into() };
        assert_eq!(decoded_len(&b64("AAAA")), 3);
        assert_eq!(decoded_len(&b64("AA==")), 1);
        assert_eq!(decoded_len(&b64("==")), 0);
        assert_eq!(decoded_len(&b64("")), 0);
    }
}
