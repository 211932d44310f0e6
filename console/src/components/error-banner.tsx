/** An error as the user reads it: the server's `detail`, with a retry button when the view can reload. */
export function ErrorBanner(props: { message: string | null | undefined; onRetry?: () => void }) {
  if (!props.message) return null;
  return (
    <div class="banner banner-error" role="alert">
      <span>{props.message}</span>
      {props.onRetry && <button type="button" class="button-small" onClick={props.onRetry}>Retry</button>}
    </div>
  );
}
