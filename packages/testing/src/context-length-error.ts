/** An OpenAI context-length rejection as the AI SDK's `APICallError` carries it (status, body, not retryable). */
export function contextLengthError(): Error {
  return Object.assign(new Error('Bad Request'), {
    name: 'AI_APICallError',
    statusCode: 400,
    responseBody: JSON.stringify({
      error: {
        code: 'context_length_exceeded',
        message:
          "This model's maximum context length is 16000 tokens. However, your messages resulted in 21000 tokens.",
      },
    }),
    isRetryable: false,
  });
}
