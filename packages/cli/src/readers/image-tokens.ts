// The image rules live in core (token counting needs them); readers import them from here.
export {
  ANTHROPIC_MAX_EDGE,
  ANTHROPIC_MAX_PIXELS,
  anthropicImageTokens,
  base64ImageSize,
  dataUrlBase64,
  type ImageSize,
  imageSize,
  type OpenAIImageDetail,
  openAIImageTokens,
} from '@baton/core/internals';
